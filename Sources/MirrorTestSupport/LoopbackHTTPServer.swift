import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An HTTP/1.1 server on 127.0.0.1 for tests: one thread per connection, `Connection: close`.
///
/// It is real HTTP over a real socket, so the client under test goes through libcurl, gzip
/// decoding and its retry logic exactly as against the CDA.
public final class LoopbackHTTPServer: @unchecked Sendable {
  /// A request as received.
  public struct Request: Sendable {
    public var method: String
    /// Path and query, e.g. `/spaces/x/environments/master/sync?initial=true`.
    public var target: String
    /// Header names lowercased.
    public var headers: [String: String]

    public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

    /// The decoded query parameters.
    public var query: [String: String] {
      guard let components = URLComponents(string: target) else { return [:] }
      var result: [String: String] = [:]
      for item in components.queryItems ?? [] { result[item.name] = item.value ?? "" }
      return result
    }
  }

  /// What to answer.
  public indirect enum Response: Sendable {
    case reply(status: Int, headers: [String: String], body: [UInt8])
    /// Close the connection without answering (a dropped connection).
    case drop
    /// Announce the whole body in `Content-Length`, send only its first `sent` bytes, then close
    /// (a connection lost mid-body).
    case cutOff(status: Int, headers: [String: String], body: [UInt8], sent: Int)
    /// Answer `response` after `seconds` (a slow server).
    case delayed(seconds: Double, Response)

    /// A JSON reply.
    public static func json(_ status: Int, _ body: [UInt8], headers: [String: String] = [:])
      -> Response
    {
      var all = headers
      all["Content-Type"] = "application/vnd.contentful.delivery.v1+json"
      return .reply(status: status, headers: all, body: body)
    }
  }

  /// The port the server listens on.
  public let port: Int
  private let listener: Int32
  private let handler: @Sendable (Request) -> Response
  private let lock = NSLock()
  private var log: [Request] = []
  private var stopped = false

  /// Starts listening on 127.0.0.1 at a free port.
  public init(handler: @escaping @Sendable (Request) -> Response) throws {
    self.handler = handler
    // A client that gave up (a timeout test) closes the socket before a slow answer is written;
    // that must be an error on write, not a SIGPIPE that ends the test process.
    signal(SIGPIPE, SIG_IGN)
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 64) == 0 else {
      close(fd)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    self.listener = fd
    self.port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  deinit { stop() }

  /// The base URL to pass as `--host`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Every request received so far.
  public var requests: [Request] {
    lock.lock()
    defer { lock.unlock() }
    return log
  }

  /// Stops accepting connections.
  public func stop() {
    lock.lock()
    let wasStopped = stopped
    stopped = true
    lock.unlock()
    guard !wasStopped else { return }
    // Wakes the accept loop, which closes the socket as it ends: closed here, its descriptor
    // could be reused by another test's server before the loop's next accept(2), which would
    // then take that server's connections.
    shutdown(listener, Int32(SHUT_RDWR))
  }

  private func acceptLoop() {
    while true {
      let connection = accept(listener, nil, nil)
      if connection < 0 {
        if errno == EINTR { continue }
        close(listener)
        return
      }
      let thread = Thread { [self] in serve(connection) }
      thread.start()
    }
  }

  private func serve(_ connection: Int32) {
    defer { close(connection) }
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while !buffer.containsHeaderEnd {
      let count = read(connection, &chunk, chunk.count)
      if count <= 0 { return }
      buffer.append(contentsOf: chunk[0..<count])
      if buffer.count > 1 << 20 { return }
    }
    guard let request = Self.parse(buffer) else { return }
    lock.lock()
    log.append(request)
    lock.unlock()
    send(handler(request), on: connection)
  }

  private func send(_ response: Response, on connection: Int32) {
    switch response {
    case .drop:
      return
    case .delayed(let seconds, let response):
      Thread.sleep(forTimeInterval: seconds)
      send(response, on: connection)
    case .reply(let status, let headers, let body):
      send(status: status, headers: headers, body: body, sending: body.count, on: connection)
    case .cutOff(let status, let headers, let body, let sent):
      send(status: status, headers: headers, body: body, sending: sent, on: connection)
    }
  }

  private func send(
    status: Int, headers: [String: String], body: [UInt8], sending: Int, on connection: Int32
  ) {
    var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      head += "\(name): \(value)\r\n"
    }
    head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
    let bytes = Array(head.utf8) + body.prefix(max(0, min(sending, body.count)))
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        write(connection, $0.baseAddress.map { $0 + offset }, bytes.count - offset)
      }
      if written <= 0 { return }
      offset += written
    }
  }

  private static func parse(_ bytes: [UInt8]) -> Request? {
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = text.components(separatedBy: "\r\n")
    let parts = lines.first?.split(separator: " ") ?? []
    guard parts.count >= 2 else { return nil }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
        in: .whitespaces)
    }
    return Request(method: String(parts[0]), target: String(parts[1]), headers: headers)
  }

  private static func reason(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 404: "Not Found"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    default: "Status"
    }
  }
}

extension [UInt8] {
  fileprivate var containsHeaderEnd: Bool {
    guard count >= 4 else { return false }
    for index in 0...(count - 4)
    where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13
      && self[index + 3] == 10
    {
      return true
    }
    return false
  }
}
