import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

/// The HTTP client under ``CDAClient``, against a loopback server.
@Suite struct CurlSessionTests {
  private static func body(of outcome: CurlSession.Outcome) -> (Int, [String: String], [UInt8])? {
    guard case .response(let status, let headers, let body) = outcome else { return nil }
    return (status, headers, body)
  }

  /// libcurl's description of the failure, or `nil` when the server answered.
  private static func failure(of outcome: CurlSession.Outcome) -> String? {
    guard case .transportFailure(let description) = outcome else { return nil }
    return description
  }

  @Test func aGzippedBodyArrivesDecodedWithLowercasedHeaderNames() async throws {
    let page = Array(String(repeating: #"{"sys": {"type": "Entry"}}"#, count: 2000).utf8)
    let compressed = try #require(GzipCompressor.compress(page))
    let server = try LoopbackHTTPServer { _ in
      .reply(
        status: 200,
        headers: ["Content-Encoding": "gzip", "X-Contentful-RateLimit-Reset": " 7 "],
        body: compressed)
    }
    let session = CurlSession(timeout: 10)
    let outcome = await session.get(
      server.baseURL + "/spaces/s/sync?initial=true", headers: ["Authorization: Bearer abc"])
    let (status, headers, body) = try #require(Self.body(of: outcome))
    #expect(status == 200)
    #expect(body == page)
    #expect(headers["x-contentful-ratelimit-reset"] == "7")
    let request = try #require(server.requests.first)
    #expect(request.target == "/spaces/s/sync?initial=true")
    #expect(request.headers["authorization"] == "Bearer abc")
    #expect(request.headers["accept-encoding"]?.contains("gzip") == true)
  }

  @Test func anErrorStatusIsAnAnswerAndTheNextRequestStartsAfresh() async throws {
    let server = try LoopbackHTTPServer { request in
      request.path == "/limited"
        ? .reply(status: 429, headers: ["X-Contentful-RateLimit-Reset": "3"], body: [])
        : .reply(status: 200, headers: [:], body: Array("ok".utf8))
    }
    let session = CurlSession(timeout: 10)
    let limited = try #require(
      Self.body(of: await session.get(server.baseURL + "/limited", headers: [])))
    #expect(limited.0 == 429)
    #expect(limited.1["x-contentful-ratelimit-reset"] == "3")
    let next = try #require(Self.body(of: await session.get(server.baseURL + "/ok", headers: [])))
    #expect(next.0 == 200)
    #expect(next.1["x-contentful-ratelimit-reset"] == nil)
    #expect(next.2 == Array("ok".utf8))
  }

  @Test func aRefusedConnectionIsATransportFailure() async throws {
    let server = try LoopbackHTTPServer { _ in .reply(status: 200, headers: [:], body: []) }
    let address = server.baseURL
    server.stop()
    let outcome = await CurlSession(timeout: 10).get(address + "/x", headers: [])
    #expect(Self.failure(of: outcome) != nil, "expected a transport failure, got \(outcome)")
  }

  @Test func aBodyCutShortIsATransportFailure() async throws {
    let server = try LoopbackHTTPServer { _ in
      .cutOff(status: 200, headers: [:], body: Array(repeating: 65, count: 10_000), sent: 100)
    }
    let outcome = await CurlSession(timeout: 10).get(server.baseURL + "/x", headers: [])
    #expect(Self.failure(of: outcome) != nil, "expected a transport failure, got \(outcome)")
  }

  @Test func aServerSlowerThanTheTimeoutIsATransportFailure() async throws {
    let server = try LoopbackHTTPServer { _ in
      .delayed(seconds: 3, .reply(status: 200, headers: [:], body: []))
    }
    let outcome = await CurlSession(timeout: 0.3).get(server.baseURL + "/x", headers: [])
    let description = try #require(Self.failure(of: outcome))
    #expect(description.lowercased().contains("timeout"))
  }

  @Test func cancellingTheWaitingTaskAbortsTheRequest() async throws {
    let server = try LoopbackHTTPServer { _ in
      .delayed(seconds: 5, .reply(status: 200, headers: [:], body: []))
    }
    let session = CurlSession(timeout: 60)
    let request = Task { await session.get(server.baseURL + "/x", headers: []) }
    try await Task.sleep(for: .milliseconds(200))
    request.cancel()
    // Not aborted, the request would end with the server's 200 after five seconds.
    #expect(Self.failure(of: await request.value) != nil, "the cancelled request was answered")
  }

  @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/"])
  func onlyHTTPAndHTTPSURLsAreFetched(_ url: String) async {
    #expect(
      Self.failure(of: await CurlSession(timeout: 1).get(url, headers: [])) != nil,
      "\(url) was fetched")
  }
}
