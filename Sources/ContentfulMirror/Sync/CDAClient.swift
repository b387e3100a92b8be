import Foundation

/// The Content Delivery API over HTTP(S), with the retries a long sync needs.
///
/// The access token travels only in the `Authorization: Bearer` header of requests built here for
/// the configured base URL; `nextPageUrl`/`nextSyncUrl` contribute their token and nothing else,
/// so the access token can never be sent to another host (redirects are not followed). Requests go
/// through libcurl (``CurlSession``), which also decodes gzip.
public struct CDAClient: SpaceSource {
  /// Where and what to sync.
  public struct Configuration: Sendable, Hashable {
    /// `cdn.contentful.com`, `preview.contentful.com`, or a full base URL such as
    /// `http://127.0.0.1:8123` for a local stand-in.
    public var host: String
    public var space: String
    public var environment: String

    public init(host: String, space: String, environment: String) {
      self.host = host
      self.space = space
      self.environment = environment
    }

    /// The base URL: `host` as given when it has a scheme, otherwise `https://host`.
    public var baseURL: String {
      var base = host.contains("://") ? host : "https://" + host
      while base.hasSuffix("/") { base.removeLast() }
      return base
    }
  }

  public let configuration: Configuration
  public let retryPolicy: RetryPolicy
  private let accessToken: String
  private let session: CurlSession

  /// - Parameters:
  ///   - configuration: Host, space and environment.
  ///   - accessToken: The CDA access token; kept in memory only.
  ///   - retryPolicy: Retry bounds.
  ///   - requestTimeout: Seconds before one request is abandoned (and retried).
  public init(
    configuration: Configuration, accessToken: String, retryPolicy: RetryPolicy = RetryPolicy(),
    requestTimeout: Double = 60
  ) {
    self.configuration = configuration
    self.accessToken = accessToken
    self.retryPolicy = retryPolicy
    self.session = CurlSession(timeout: requestTimeout)
  }

  /// The URL for `request` on the configured host.
  public func url(for request: SourceRequest) -> String {
    let base =
      "\(configuration.baseURL)/spaces/\(configuration.space)/environments/\(configuration.environment)"
    switch request {
    case .locales(let skip): return "\(base)/locales?limit=1000&skip=\(skip)"
    case .contentTypes(let skip): return "\(base)/content_types?limit=1000&skip=\(skip)"
    case .initialSync: return "\(base)/sync?initial=true"
    case .sync(let token): return "\(base)/sync?sync_token=\(Self.queryEscaped(token))"
    }
  }

  public func fetch(_ request: SourceRequest) async throws(SyncError) -> [UInt8] {
    try await fetch(request) { bytes throws(SyncError) in bytes }
  }

  /// Fetches and decodes `request`, retrying 5xx answers, dropped connections, 429s within
  /// ``RetryPolicy/maximumRateLimitWait``, and bodies `decode` finds malformed.
  public func fetch<Value>(
    _ request: SourceRequest, decodedBy decode: ([UInt8]) throws(SyncError) -> Value
  ) async throws(SyncError) -> Value {
    let address = url(for: request)
    guard URL(string: address) != nil, CurlSession.fetches(address) else {
      throw SyncError(.invalidConfiguration, "cannot build a URL from host \(configuration.host)")
    }
    let headers = [
      "Authorization: Bearer \(accessToken)",
      "X-Contentful-User-Agent: app contentful-mirror/\(ContentfulMirrorVersion.current)",
    ]
    let display = Self.redacted(address)
    var waited: Duration = .zero
    var attempt = 0
    while true {
      attempt += 1
      let outcome = await session.get(address, headers: headers)
      let retryAfter: Duration
      let failure: String
      switch outcome {
      case .response(let status, let headers, let body):
        switch status {
        case 200..<300:
          do {
            return try decode(body)
          } catch {
            guard error.code == .malformedResponse else { throw error }
            retryAfter = retryPolicy.backoff(afterAttempt: attempt)
            failure = error.message
          }
        case 429:
          let reset = headers["x-contentful-ratelimit-reset"].flatMap { Double($0) } ?? 1
          let wait = Duration.milliseconds(Int64(max(reset, 0) * 1000))
          guard wait <= retryPolicy.maximumRateLimitWait else {
            throw SyncError(
              .rateLimited,
              "rate limited by \(configuration.host): the server asks to wait \(Int(reset)) s, more than the "
                + "\(retryPolicy.maximumRateLimitWait.components.seconds) s this tool waits; run the sync again later"
            )
          }
          retryAfter = wait
          failure = "HTTP 429 (rate limited)"
        case 500..<600:
          retryAfter = retryPolicy.backoff(afterAttempt: attempt)
          failure = "HTTP \(status)"
        default:
          throw classify(status: status, body: body, request: request, display: display)
        }
      case .transportFailure(let description):
        retryAfter = retryPolicy.backoff(afterAttempt: attempt)
        failure = "network error: \(description)"
      }
      guard attempt < retryPolicy.maximumAttempts,
        waited + retryAfter <= retryPolicy.totalWaitBudget
      else {
        throw SyncError(
          .unavailable,
          "\(display) kept failing (\(failure)) after \(attempt) attempts; check the host and your network, "
            + "then run the sync again (it resumes where it stopped)")
      }
      try? await Task.sleep(for: retryAfter)
      if Task.isCancelled {
        throw SyncError(.unavailable, "the sync stopped before \(display) answered")
      }
      waited += retryAfter
    }
  }

  private func classify(status: Int, body: [UInt8], request: SourceRequest, display: String)
    -> SyncError
  {
    let detail =
      (try? JSONReader().read(body))?["message"]?.stringValue.map { ": " + Identifier.quoted($0) }
      ?? ""
    switch status {
    case 400 where { if case .sync = request { true } else { false } }():
      return SyncError(
        .tokenRejected,
        "the server rejected the stored sync token (HTTP 400\(detail)); "
          + "run `contentful-mirror sync --full` to start a fresh sync")
    case 401, 403:
      return SyncError(
        .unauthorized,
        "the access token was refused (HTTP \(status)) by \(configuration.host); check "
          + "CONTENTFUL_ACCESS_TOKEN or --token-file, and that the token is for space \(configuration.space)"
      )
    case 404:
      return SyncError(
        .notFound,
        "space \(configuration.space) or environment \(configuration.environment) was not found at "
          + "\(configuration.host) (HTTP 404); check --space and --environment")
    default:
      return SyncError(.invalidResponse, "\(display) answered HTTP \(status)\(detail)")
    }
  }

  /// The URL without its query, for messages.
  static func redacted(_ address: String) -> String {
    String(address.split(separator: "?", maxSplits: 1).first ?? "")
  }

  private static func queryEscaped(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }
}
