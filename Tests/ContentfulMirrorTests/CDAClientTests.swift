import ContentfulMirror
import Testing

/// What ``CDAClient`` decides before any request.
@Suite struct CDAClientTests {
  @Test func aHostWithAnotherSchemeFailsAtOnceAsAConfigurationError() async {
    let client = CDAClient(
      configuration: .init(host: "ftp://127.0.0.1:1", space: "s", environment: "master"),
      accessToken: "abc")
    do {
      _ = try await client.fetch(.initialSync)
      Issue.record("an ftp host was fetched")
    } catch {
      #expect(error.code == .invalidConfiguration)
    }
  }
}
