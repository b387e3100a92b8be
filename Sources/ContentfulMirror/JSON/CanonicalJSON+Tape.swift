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
  /// canonical form, without decoding it into a buffer first.
  private static func writeEscaped<Sink: ByteSink & ~Copyable>(
    _ raw: UnsafeBufferPointer<UInt8>, to output: inout Sink
  ) {
    output.write(UInt8(ascii: "\""))
    JSONTape.View.unescape(raw, run: { output.write($0) }) { character in
      if character.value < 0x20 || character == "\"" || character == "\\" {
        appendEscape(UInt8(character.value), to: &output)
      } else {
        UTF8.encode(character) { output.write($0) }
      }
    }
    output.write(UInt8(ascii: "\""))
  }
}
