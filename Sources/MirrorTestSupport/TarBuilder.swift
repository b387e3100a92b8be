/// Builds ustar archives byte by byte, including members a well-behaved writer never makes
/// (absolute paths, `..`, links, devices), to test that restore refuses them.
public struct TarBuilder {
  public enum Kind: UInt8, Sendable {
    case file = 0x30  // '0'
    case hardLink = 0x31  // '1'
    case symbolicLink = 0x32  // '2'
    case characterDevice = 0x33  // '3'
    case directory = 0x35  // '5'
  }

  private var bytes: [UInt8] = []

  public init() {}

  /// Appends one member.
  public mutating func add(
    _ path: String, _ content: [UInt8] = [], kind: Kind = .file, linkTarget: String = ""
  ) {
    var header = [UInt8](repeating: 0, count: 512)
    func put(_ text: String, at offset: Int, width: Int) {
      for (index, byte) in text.utf8.prefix(width).enumerated() { header[offset + index] = byte }
    }
    func octal(_ value: Int, at offset: Int, width: Int) {
      let digits = String(value, radix: 8)
      put(
        String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits, at: offset,
        width: width - 1)
    }
    put(path, at: 0, width: 100)
    octal(kind == .directory ? 0o755 : 0o644, at: 100, width: 8)
    octal(0, at: 108, width: 8)
    octal(0, at: 116, width: 8)
    octal(kind == .file ? content.count : 0, at: 124, width: 12)
    octal(0, at: 136, width: 12)
    header[156] = kind.rawValue
    put(linkTarget, at: 157, width: 100)
    put("ustar", at: 257, width: 6)
    put("00", at: 263, width: 2)
    for index in 148..<156 { header[index] = 0x20 }
    let sum = header.reduce(0) { $0 + Int($1) }
    octal(sum, at: 148, width: 7)
    header[155] = 0x20
    bytes += header
    if kind == .file {
      bytes += content
      bytes += [UInt8](repeating: 0, count: (512 - content.count % 512) % 512)
    }
  }

  /// The archive, with its end-of-archive blocks.
  public var archive: [UInt8] { bytes + [UInt8](repeating: 0, count: 1024) }
}
