import ContentfulMirror
import Foundation
import MirrorTestSupport
import Testing

/// Faults from the network and the server, injected by the loopback server into syncs the real
/// executable runs: transient ones are retried until the mirror equals the fault-free result,
/// permanent ones fail with exit 1 and a clear message, leaving the committed mirror unchanged.
@Suite struct NetworkFaultTests {
  static let token = "CFPAT-fault-suite-5550123abcdef"
  static let golden = CommandLineTests.golden

  /// One kind of bad answer.
  enum Fault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case rateLimitedForASecond, serverError500, badGateway502, unavailable503
    case connectionDropped, connectionLostMidBody, truncatedJSON, validJSONButNotASyncPage
    case emptyBodyWith200, slowerThanTheTimeout

    var testDescription: String { rawValue }

    var response: LoopbackHTTPServer.Response {
      let page = Array(#"{"sys":{"type":"Array"},"items":[{"sys":{"type":"Entry","id":"#.utf8)
      switch self {
      case .rateLimitedForASecond:
        return RecordedSpaceServer.error(429, "RateLimitExceeded", "Rate limit exceeded")
          .adding(header: "X-Contentful-RateLimit-Reset", value: "1")
      case .serverError500: return RecordedSpaceServer.error(500, "ServerError", "Server error")
      case .badGateway502: return .json(502, Array("<html>Bad Gateway</html>".utf8))
      case .unavailable503:
        return RecordedSpaceServer.error(503, "ServiceUnavailable", "Service unavailable")
      case .connectionDropped: return .drop
      case .connectionLostMidBody:
        return .cutOff(
          status: 200, headers: [:], body: page + [UInt8](repeating: 32, count: 4000), sent: 200)
      case .truncatedJSON: return .json(200, page)
      case .validJSONButNotASyncPage: return .json(200, Array(#"{"sys":{"type":"Array"}}"#.utf8))
      case .emptyBodyWith200: return .json(200, [])
      case .slowerThanTheTimeout:
        return .delayed(seconds: 3, .json(200, Array(#"{"items":[]}"#.utf8)))
      }
    }

    /// What the message of a sync that met this fault on every request says.
    var permanentMessage: String {
      switch self {
      case .rateLimitedForASecond: "HTTP 429"
      case .serverError500: "HTTP 500"
      case .badGateway502: "HTTP 502"
      case .unavailable503: "HTTP 503"
      case .connectionDropped, .connectionLostMidBody, .slowerThanTheTimeout: "network error"
      case .truncatedJSON, .emptyBodyWith200: "not valid JSON"
      case .validJSONButNotASyncPage: "no items array"
      }
    }
  }

  var runner: CommandRunner {
    var runner = CommandRunner()
    runner.environment["CONTENTFUL_ACCESS_TOKEN"] = Self.token
    return runner
  }

  func sync(_ mirror: String, _ server: RecordedSpaceServer, _ extra: [String] = []) throws
    -> CommandRunner.Result
  {
    try runner.run(
      ["sync", mirror, "--space", "mirrorsample01", "--host", server.baseURL, "--timeout", "1"]
        + extra)
  }

  /// The mirror without its manifest (which names the server's port) and per-run files.
  static func contentWithoutManifest(_ root: String) -> DirectoryTree {
    DirectoryTree(root: root) {
      $0 == "manifest.json" || $0 == ".mirror/lock" || $0 == ".mirror/last-sync.json"
    }
  }

  static func syncToken(_ root: String) throws -> String? {
    try JSONReader().read(
      Array(try Data(contentsOf: URL(fileURLWithPath: root + "/manifest.json"))))[
        "syncToken"]?.stringValue
  }

  @Test(arguments: Fault.allCases)
  func oneRequestInFiveFailingStillGivesTheFaultFreeMirror(_ fault: Fault) throws {
    let server = try RecordedSpaceServer(
      directory: RepositoryPaths.sampleSpace, accessToken: Self.token)
    // Requests 3, 8, 13: the second initial page, the delta page, a /locales request.
    let response = fault.response
    server.inject { _, number in number % 5 == 3 ? response : nil }
    let work = try TemporaryDirectory("faults")
    let mirror = work.appending("content")
    for _ in 0..<3 {
      let result = try sync(mirror, server)
      #expect(result.status == 0, "\(fault): \(result.error)")
    }
    #expect(server.requests.count > 12, "the faults were not all reached")
    let expected = Self.contentWithoutManifest(Self.golden)
    #expect(Self.contentWithoutManifest(mirror).differences(from: expected) == [])
    #expect(try Self.syncToken(mirror) == "delta-2")
  }

  @Test(arguments: Fault.allCases)
  func aFaultOnEveryRequestFailsClearlyAndLeavesTheMirrorAsItWas(_ fault: Fault) throws {
    let server = try RecordedSpaceServer(
      directory: RepositoryPaths.sampleSpace, accessToken: Self.token)
    let work = try TemporaryDirectory("faults-permanent")
    let mirror = work.appending("content")
    #expect(try sync(mirror, server).status == 0)
    let before = DirectoryTree.mirror(at: mirror)
    let response = fault.response
    server.inject { request, _ in request.path.hasSuffix("/sync") ? response : nil }
    let start = server.requests.count
    let result = try sync(mirror, server, ["--retries", "2"])
    #expect(result.status == 1)
    #expect(result.error.contains(fault.permanentMessage), "\(result.error)")
    #expect(
      result.error.contains("after 3 attempts") && result.error.contains("run the sync again"))
    #expect(!result.error.contains(Self.token))
    // /locales and /content_types, then the delta page three times: bounded by --retries.
    #expect(server.requests.count - start == 2 + 3)
    #expect(DirectoryTree.mirror(at: mirror) == before)
    #expect(try Self.syncToken(mirror) == "delta-1")
  }

  @Test func aRateLimitResetBeyondTheCapFailsAtOnceWithoutWaiting() throws {
    let server = try RecordedSpaceServer(
      directory: RepositoryPaths.sampleSpace, accessToken: Self.token)
    server.inject { _, _ in
      RecordedSpaceServer.error(429, "RateLimitExceeded", "Rate limit exceeded")
        .adding(header: "X-Contentful-RateLimit-Reset", value: "3600")
    }
    let work = try TemporaryDirectory("faults-429")
    let result = try sync(work.appending("content"), server)
    #expect(result.status == 1)
    #expect(result.error.contains("3600 s") && result.error.contains("run the sync again later"))
    #expect(server.requests.count == 1)
  }

  @Test func nextPageURLsNamingAnotherHostAreFetchedFromTheConfiguredHostOnly() throws {
    let elsewhere = try LoopbackHTTPServer { _ in .json(200, Array(#"{"items":[]}"#.utf8)) }
    let recording = try TemporaryDirectory("faults-host")
    let space = recording.appending("space")
    try RepositoryPaths.copySampleSpace(to: space)
    for page in ["initial", "initial-p2"] {
      let path = space + "/sync/\(page).json"
      let text = try String(contentsOfFile: path, encoding: .utf8)
      let redirected = text.replacingOccurrences(
        of: "https://cdn.contentful.com", with: elsewhere.baseURL)
      #expect(redirected != text)
      try redirected.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let server = try RecordedSpaceServer(directory: space, accessToken: Self.token)
    let result = try sync(recording.appending("content"), server)
    #expect(result.status == 0, "\(result.error)")
    #expect(elsewhere.requests.isEmpty)
    let pages = server.requests.filter { $0.path.hasSuffix("/sync") }
    #expect(
      pages.map { $0.query["sync_token"] ?? "initial" } == ["initial", "initial-p2", "initial-p3"])
    #expect(pages.allSatisfy { $0.headers["authorization"] == "Bearer \(Self.token)" })
  }
}

extension LoopbackHTTPServer.Response {
  /// The same reply with one more header.
  fileprivate func adding(header name: String, value: String) -> Self {
    guard case .reply(let status, var headers, let body) = self else { return self }
    headers[name] = value
    return .reply(status: status, headers: headers, body: body)
  }
}
