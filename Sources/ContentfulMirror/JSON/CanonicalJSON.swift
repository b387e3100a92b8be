/// Writes JSON in the mirror's canonical form.
///
/// The form is fixed so that the same value always gives the same bytes: UTF-8, members in key
/// code point order, two-space indentation, `": "` between key and value, no escaped slashes,
/// non-ASCII written as itself, numbers as their original lexeme, and a trailing newline.
/// It matches Python's `json.dumps(v, indent=2, sort_keys=True, ensure_ascii=False)`.
public enum CanonicalJSON {
  /// The canonical bytes of `value`, ending in a newline.
  public static func encode(_ value: JSONValue) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(1024)
    append(value, to: &output)
    return output
  }

  /// The compact canonical bytes of `value`: the same key order and escapes, no whitespace,
  /// ending in a newline. For the mirror's private files, where size matters and nobody diffs.
  public static func encodeCompact(_ value: JSONValue) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(2048)
    writeCompact(value, to: &output)
    output.append(0x0A)
    return output
  }

  private static func writeCompact(_ value: JSONValue, to output: inout [UInt8]) {
    switch value {
    case .array(let elements):
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        writeCompact(element, to: &output)
      }
      output.append(UInt8(ascii: "]"))
    case .object(let object):
      output.append(UInt8(ascii: "{"))
      for (index, member) in object.members.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        writeString(member.key, to: &output)
        output.append(UInt8(ascii: ":"))
        writeCompact(member.value, to: &output)
      }
      output.append(UInt8(ascii: "}"))
    default:
      write(value, indent: 0, to: &output)
    }
  }

  /// Appends the canonical bytes of `value`, ending in a newline, to `output`.
  public static func append(_ value: JSONValue, to output: inout [UInt8]) {
    write(value, indent: 0, to: &output)
    output.append(0x0A)
  }

  /// Appends `value` as it appears nested `indent` levels deep (no trailing newline), so
  /// renderers can splice pre-encoded values into larger documents.
  static func write(_ value: JSONValue, indent: Int, to output: inout [UInt8]) {
    switch value {
    case .null: output.append(contentsOf: "null".utf8)
    case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
    case .number(let lexeme): output.append(contentsOf: lexeme.utf8)
    case .string(let string): writeString(string, to: &output)
    case .array(let elements):
      guard !elements.isEmpty else { return output.append(contentsOf: "[]".utf8) }
      output.append(UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        newline(indent + 1, &output)
        write(element, indent: indent + 1, to: &output)
      }
      newline(indent, &output)
      output.append(UInt8(ascii: "]"))
    case .object(let object):
      guard !object.isEmpty else { return output.append(contentsOf: "{}".utf8) }
      output.append(UInt8(ascii: "{"))
      for (index, member) in object.members.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        newline(indent + 1, &output)
        writeString(member.key, to: &output)
        output.append(UInt8(ascii: ":"))
        output.append(UInt8(ascii: " "))
        write(member.value, indent: indent + 1, to: &output)
      }
      newline(indent, &output)
      output.append(UInt8(ascii: "}"))
    }
  }

  /// A newline and 32 levels of indentation, in the binary (no global to initialize or retain).
  private static var newlineAndSpaces: StaticString {
    "\n                                                                "
  }

  static func newline<Sink: ByteSink & ~Copyable>(_ indent: Int, _ output: inout Sink) {
    let text = newlineAndSpaces
    var remaining = 1 + indent * 2
    var start = text.utf8Start
    while remaining > 0 {
      let count = min(remaining, text.utf8CodeUnitCount)
      output.write(UnsafeBufferPointer(start: start, count: count))
      remaining -= count
      start = text.utf8Start + 1  // deeper levels: spaces only
    }
  }

  static func writeString<Sink: ByteSink & ~Copyable>(_ string: String, to output: inout Sink) {
    var string = string
    string.withUTF8 { writeString(utf8: $0, to: &output) }
  }

  /// Writes the UTF-8 text `bytes` as a JSON string.
  static func writeString<Sink: ByteSink & ~Copyable>(
    utf8 bytes: UnsafeBufferPointer<UInt8>, to output: inout Sink
  ) {
    output.write(UInt8(ascii: "\""))
    writeStringContent(utf8: bytes, to: &output)
    output.write(UInt8(ascii: "\""))
  }

  /// Writes the UTF-8 text `bytes` escaped, between quotes the caller writes.
  static func writeStringContent<Sink: ByteSink & ~Copyable>(
    utf8 bytes: UnsafeBufferPointer<UInt8>, to output: inout Sink
  ) {
    // Copy runs that need no escaping in one go; only `"`, `\` and controls are escaped.
    var runStart = 0
    for index in 0..<bytes.count {
      let byte = bytes[index]
      guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
        continue
      }
      output.write(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
      appendEscape(byte, to: &output)
      runStart = index + 1
    }
    output.write(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
  }

  static func appendEscape<Sink: ByteSink & ~Copyable>(_ byte: UInt8, to output: inout Sink) {
    output.write(0x5C)
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.write(byte)
    case 0x0A: output.write(UInt8(ascii: "n"))
    case 0x0D: output.write(UInt8(ascii: "r"))
    case 0x09: output.write(UInt8(ascii: "t"))
    case 0x08: output.write(UInt8(ascii: "b"))
    case 0x0C: output.write(UInt8(ascii: "f"))
    default:
      output.write("u00")
      output.write(hexDigit(byte >> 4))
      output.write(hexDigit(byte & 0xF))
    }
  }

  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
  }

}
