import ContentfulMirror

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads small text files named on the command line: access tokens and earlier manifests.
enum TokenFile {
  /// An access token: the first line of the file, without surrounding whitespace.
  static func read(_ path: String) throws -> String {
    let bytes = try contents(of: path, limit: 16_384, label: "--token-file \(path)")
    let text = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
    return String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
  }

  /// The whole text of a small file (at most 16 MB).
  static func readAll(_ path: String) throws -> String {
    String(decoding: try contents(of: path, limit: 16 << 20, label: path), as: UTF8.self)
  }

  private static func contents(of path: String, limit: Int, label: String) throws -> [UInt8] {
    guard let file = fopen(path, "r") else {
      throw UsageError("cannot read \(label): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    while bytes.count < limit {
      let byte = fgetc(file)
      if byte == EOF { break }
      bytes.append(UInt8(truncatingIfNeeded: byte))
    }
    return bytes
  }
}
