private import CCurl
import Dispatch
import Synchronization

/// HTTP GETs through libcurl's easy interface, one at a time on a thread of their own, over a
/// connection kept alive between requests. Cancelling the task that awaits a request aborts it.
///
/// On Linux, URLSession hands every 16 KB of a decoded body from thread to thread: a 20k-entry
/// sync cost it 33k context switches and about 0.8 s of CPU more than reading the same pages
/// from disk (through this session: 3k, and about 0.35 s). A sync fetches one page while it
/// writes the previous one, so one request at a time is all it needs.
final class CurlSession: Sendable {
  /// What a request came back with.
  enum Outcome: Sendable {
    /// An HTTP answer, any status; header names are lowercased.
    case response(status: Int, headers: [String: String], body: [UInt8])
    /// No HTTP answer: the connection failed, dropped, or timed out (libcurl's description).
    case transportFailure(String)
  }

  private let queue = DispatchQueue(label: "contentful-mirror.http")
  private let handle: Mutex<UnsafeMutableRawPointer?>
  private let timeoutMilliseconds: Int

  /// libcurl's global state, set up once before the first handle.
  private static let globalInitialization: Void = {
    _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
  }()

  /// - Parameter timeout: Seconds before a request is abandoned.
  init(timeout: Double) {
    _ = Self.globalInitialization
    handle = Mutex(curl_easy_init())
    timeoutMilliseconds = max(1, Int(timeout * 1000))
  }

  deinit {
    handle.withLock { handle in
      if let handle { curl_easy_cleanup(handle) }
    }
  }

  /// Fetches `url` (http or https only) with `headers` (`Name: value` lines); the body is
  /// decoded from any content encoding the server chose.
  func get(_ url: String, headers: [String]) async -> Outcome {
    let cancelled = CancellationFlag()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        queue.async {
          continuation.resume(returning: self.perform(url, headers: headers, cancelled: cancelled))
        }
      }
    } onCancel: {
      cancelled.value.store(true, ordering: .relaxed)
    }
  }

  /// Whether `url` is one this session fetches: http and https only.
  static func fetches(_ url: String) -> Bool {
    url.hasPrefix("https://") || url.hasPrefix("http://")
  }

  private func perform(_ url: String, headers: [String], cancelled: CancellationFlag) -> Outcome {
    guard Self.fetches(url) else {
      return .transportFailure("only http and https URLs are fetched")
    }
    guard !cancelled.value.load(ordering: .relaxed) else {
      return .transportFailure("the request was cancelled")
    }
    return handle.withLock { handle -> Outcome in
      guard let handle else { return .transportFailure("libcurl could not start") }
      curl_easy_reset(handle)  // keeps the open connection, forgets the last request's options
      var list: UnsafeMutablePointer<curl_slist>? = nil
      for header in headers { list = curl_slist_append(list, header) }
      defer { curl_slist_free_all(list) }
      let transfer = Transfer(cancelled: cancelled)
      let context = Unmanaged.passUnretained(transfer).toOpaque()
      var status = CURLE_OK
      func set(_ option: CURLoption, _ value: Int) {
        if status == CURLE_OK { status = cm_curl_setopt_long(handle, option, value) }
      }
      func set(_ option: CURLoption, _ value: UnsafeRawPointer?) {
        if status == CURLE_OK { status = cm_curl_setopt_pointer(handle, option, value) }
      }
      url.withCString { set(CURLOPT_URL, $0) }  // libcurl copies strings it is given
      "".withCString { set(CURLOPT_ACCEPT_ENCODING, $0) }  // every encoding libcurl decodes
      set(CURLOPT_HTTPHEADER, UnsafeRawPointer(list))
      set(CURLOPT_NOSIGNAL, 1)
      set(CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
      set(CURLOPT_BUFFERSIZE, 256 * 1024)
      set(CURLOPT_WRITEDATA, context)
      set(CURLOPT_HEADERDATA, context)
      if status == CURLE_OK {
        status = cm_curl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, Transfer.receiveBody)
      }
      if status == CURLE_OK {
        status = cm_curl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, Transfer.receiveHeader)
      }
      if status == CURLE_OK {
        status = cm_curl_setopt_progress(handle, Transfer.continueUnlessCancelled, context)
      }
      if status == CURLE_OK { status = curl_easy_perform(handle) }
      guard status == CURLE_OK else {
        return .transportFailure(String(cString: curl_easy_strerror(status)))
      }
      return withExtendedLifetime(transfer) {
        .response(
          status: cm_curl_response_code(handle), headers: transfer.headers, body: transfer.body)
      }
    }
  }

  /// The body and headers of the request in progress, filled by libcurl's callbacks.
  private final class Transfer {
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    let cancelled: CancellationFlag

    init(cancelled: CancellationFlag) {
      self.cancelled = cancelled
    }

    /// The transfer a callback's context points to.
    private static func from(_ context: UnsafeMutableRawPointer?) -> Transfer? {
      context.map { Unmanaged<Transfer>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Called by libcurl as the transfer progresses: a non-zero answer aborts it.
    static let continueUnlessCancelled: curl_xferinfo_callback = { context, _, _, _, _ in
      from(context)?.cancelled.value.load(ordering: .relaxed) == true ? 1 : 0
    }

    static let receiveBody: curl_write_callback = { bytes, size, count, context in
      let length = size * count
      guard let transfer = from(context) else { return 0 }  // 0: libcurl ends the transfer
      transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: length))
      return length
    }

    /// One header line at a time, the status line included (which starts a new set: a
    /// `100 Continue` answer has headers of its own).
    static let receiveHeader: curl_write_callback = { bytes, size, count, context in
      let length = size * count
      guard let transfer = from(context) else { return 0 }
      let line = String(
        decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
      if line.hasPrefix("HTTP/") {
        transfer.headers = [:]
      } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        transfer.headers[name] = value
      }
      return length
    }
  }
}

/// Set when the task awaiting a request is cancelled.
private final class CancellationFlag: Sendable {
  let value = Atomic(false)
}

extension Substring {
  fileprivate func trimmingWhitespace() -> String {
    guard let first = firstIndex(where: { !$0.isWhitespace }),
      let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(self[first...last])
  }
}
