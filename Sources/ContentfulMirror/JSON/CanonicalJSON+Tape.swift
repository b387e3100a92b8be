extension CanonicalJSON {
  /// Appends the canonical bytes of tape node `node` as it appears nested `indent` levels deep
  /// (no trailing newline). The same bytes as writing its ``JSONValue``, but numbers, literals
  /// and strings without escapes are copied from the source as they are.
  static func write<Sink: ByteSink & ~Copyable>(
    _ view: JSONTape.View, _ node: Int, indent: Int, to output: inout Sink
  ) {
    switch view.kind(node) {
    case .null, .true, .false, .number:
      output.write(view.slice(node))
    case .string, .escapedString:
      writeString(view, node, to: &output)
    case .array:
      guard view.nodes[node].count > 0 else {
        return output.write("[]")
      }
      output.write(UInt8(ascii: "["))
      var child = node + 1
      while child < view.next(node) {
        if child > node + 1 { output.write(UInt8(ascii: ",")) }
        newline(indent + 1, &output)
        write(view, child, indent: indent + 1, to: &output)
        child = view.next(child)
      }
      newline(indent, &output)
      output.write(UInt8(ascii: "]"))
    case .object:
      guard view.nodes[node].count > 0 else {
        return output.write("{}")
      }
      output.write(UInt8(ascii: "{"))
      for (position, key) in view.sortedKeys(of: node).enumerated() {
        if position > 0 { output.write(UInt8(ascii: ",")) }
        writeMember(view, key: Int(key), indent: indent + 1, to: &output)
      }
      newline(indent, &output)
      output.write(UInt8(ascii: "}"))
    }
  }

  /// Appends a member on its own line: newline, indentation, `"key": value`.
  static func writeMember<Sink: ByteSink & ~Copyable>(
    _ view: JSONTape.View, key: Int, indent: Int, to output: inout Sink
  ) {
    newline(indent, &output)
    writeString(view, key, to: &output)
    output.write(": ")
    write(view, key + 1, indent: indent, to: &output)
  }

  /// Appends string node `node` (a value or a key) as a canonical JSON string.
  static func writeString<Sink: ByteSink & ~Copyable>(
    _ view: JSONTape.View, _ node: Int, to output: inout Sink
  ) {
    guard view.kind(node) == .string else { return writeEscaped(view.slice(node), to: &output) }
    // No escapes in the source means nothing to escape: no quote, backslash or control byte.
    output.write(UInt8(ascii: "\""))
    output.write(view.slice(node))
    output.write(UInt8(ascii: "\""))
  }

  /// Appends a string whose source has escapes (`raw`: between the quotes, validated), in
  /// canonical form, without decoding it into a buffer first: escapes the canonical form keeps
  /// are copied, the others become the characters they stand for.
  private static func writeEscaped<Sink: ByteSink & ~Copyable>(
    _ raw: UnsafeBufferPointer<UInt8>, to output: inout Sink
  ) {
    output.write(UInt8(ascii: "\""))
    var runStart = 0
    var index = 0
    while index < raw.count {
      guard raw[index] == UInt8(ascii: "\\") else {
        index += 1
        continue
      }
      output.write(UnsafeBufferPointer(rebasing: raw[runStart..<index]))
      let escape = raw[index + 1]
      index += 2
      switch escape {
      case UInt8(ascii: "/"):
        output.write(escape)
      case UInt8(ascii: "u"):
        var scalar = JSONTape.View.hex4(raw, at: index)
        index += 4
        if (0xD800...0xDBFF).contains(scalar) {
          let low = JSONTape.View.hex4(raw, at: index + 2)
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          index += 6
        }
        if scalar < 0x20 || scalar == 0x22 || scalar == 0x5C {
          appendEscape(UInt8(scalar), to: &output)
        } else if let scalar = Unicode.Scalar(scalar) {
          UTF8.encode(scalar) { output.write($0) }
        }
      default:  // `"`, `\`, b, f, n, r, t: the canonical form escapes them the same way
        output.write(UInt8(ascii: "\\"))
        output.write(escape)
      }
      runStart = index
    }
    output.write(UnsafeBufferPointer(rebasing: raw[runStart..<raw.count]))
    output.write(UInt8(ascii: "\""))
  }
}
