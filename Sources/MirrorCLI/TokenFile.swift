import ContentfulMirror

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads an access token from a file: its first line, without surrounding whitespace.
enum TokenFile {
  static func read(_ path: String) throws -> String {
    guard let file = fopen(path, "r") else {
      throw UsageError("cannot read --token-file \(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    while bytes.count < 16_384 {
      let byte = fgetc(file)
      if byte == EOF || byte == 0x0A { break }
      bytes.append(UInt8(truncatingIfNeeded: byte))
    }
    let text = String(decoding: bytes, as: UTF8.self)
    return String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
  }

  /// The whole text of a small file (at most 16 MB).
  static func readAll(_ path: String) throws -> String {
    guard let file = fopen(path, "r") else {
      throw UsageError("cannot read \(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    while bytes.count < 16 << 20 {
      let byte = fgetc(file)
      if byte == EOF { break }
      bytes.append(UInt8(truncatingIfNeeded: byte))
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
