import Foundation

/// Serves a recorded space directory (see `RecordedSpace`) over loopback HTTP with the CDA's
/// URL scheme, bearer-token check, gzip, and scriptable faults.
public final class RecordedSpaceServer: @unchecked Sendable {
  /// A fault hook: given the request and its 0-based sequence number, an answer to send instead.
  public typealias Fault =
    @Sendable (LoopbackHTTPServer.Request, Int) -> LoopbackHTTPServer.Response?

  public let directory: String
  public let accessToken: String
  private let lock = NSLock()
  private var fault: Fault?
  private var sequence = 0
  private var gzipped = 0
  private var server: LoopbackHTTPServer?

  /// Starts serving `directory`, accepting only `accessToken`.
  public init(directory: String, accessToken: String) throws {
    self.directory = directory
    self.accessToken = accessToken
    server = try LoopbackHTTPServer { [unowned(unsafe) self] request in
      self.respond(to: request)
    }
  }

  deinit { server?.stop() }

  /// `http://127.0.0.1:<port>`.
  public var baseURL: String { server?.baseURL ?? "" }

  /// Every request received.
  public var requests: [LoopbackHTTPServer.Request] { server?.requests ?? [] }

  /// How many responses were sent gzip-encoded.
  public var gzippedResponses: Int {
    lock.lock()
    defer { lock.unlock() }
    return gzipped
  }

  /// Installs a fault hook (replacing any earlier one).
  public func inject(_ fault: Fault?) {
    lock.lock()
    self.fault = fault
    lock.unlock()
  }

  public func stop() { server?.stop() }

  private func respond(to request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Response {
    lock.lock()
    let number = sequence
    sequence += 1
    let fault = self.fault
    lock.unlock()
    if let injected = fault?(request, number) { return injected }
    guard request.headers["authorization"] == "Bearer \(accessToken)" else {
      return Self.error(
        401, "AccessTokenInvalid", "The access token you sent could not be found or is invalid.")
    }
    let parts = request.path.split(separator: "/").map(String.init)
    guard parts.count == 5, parts[0] == "spaces", parts[2] == "environments" else {
      return Self.error(404, "NotFound", "The resource could not be found.")
    }
    let query = request.query
    let file: String
    switch parts[4] {
    case "locales": file = "locales.json"
    case "content_types": file = "content_types.json"
    case "sync":
      if let token = query["sync_token"] {
        guard query.count == 1 else {
          return Self.error(
            400, "BadRequest", "sync_token cannot be combined with other parameters")
        }
        file = "sync/\(token).json"
      } else if query["initial"] == "true" {
        file = "sync/initial.json"
      } else {
        return Self.error(400, "BadRequest", "initial=true or sync_token is required")
      }
    default:
      return Self.error(404, "NotFound", "The resource could not be found.")
    }
    guard !file.contains(".."),
      let data = FileManager.default.contents(atPath: directory + "/" + file)
    else {
      if parts[4] == "sync" { return Self.error(400, "BadRequest", "The sync token is invalid.") }
      return Self.error(404, "NotFound", "The resource could not be found.")
    }
    var body = [UInt8](data)
    var headers: [String: String] = [:]
    if request.headers["accept-encoding"]?.contains("gzip") == true {
      body = Gzip.encode(body)
      headers["Content-Encoding"] = "gzip"
      lock.lock()
      gzipped += 1
      lock.unlock()
    }
    return .json(200, body, headers: headers)
  }

  /// A CDA-shaped error response.
  public static func error(_ status: Int, _ id: String, _ message: String)
    -> LoopbackHTTPServer.Response
  {
    let body =
      "{\"sys\":{\"type\":\"Error\",\"id\":\"\(id)\"},\"message\":\"\(message)\",\"requestId\":\"test\"}"
    return .json(status, Array(body.utf8))
  }
}
