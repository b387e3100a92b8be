#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command writes: results to standard output, progress and errors to standard error.
public struct Console: Sendable {
  public var output: @Sendable (String) -> Void
  public var error: @Sendable (String) -> Void

  public init(
    output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void
  ) {
    self.output = output
    self.error = error
  }

  /// The process's standard output and standard error (unbuffered `write(2)`).
  public static let standard = Console(
    output: { text in writeAll(text, to: STDOUT_FILENO) },
    error: { text in writeAll(text, to: STDERR_FILENO) })

  private static func writeAll(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeMutableBytes { buffer in
        write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
      }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { return }
      offset += count
    }
  }
}
