/// A strict, validating JSON reader working on UTF-8 bytes (RFC 8259) that returns
/// ``JSONValue`` trees.
///
/// It reads through a ``JSONTape`` (see ``TapeParser`` for what is checked) and materializes the
/// values; the sync's hot path uses tapes directly.
public struct JSONReader: Sendable {
  /// The deepest nesting of arrays and objects accepted.
  public var maximumDepth: Int

  public init(maximumDepth: Int = 256) {
    self.maximumDepth = maximumDepth
  }

  /// Parses one complete JSON document (surrounding whitespace allowed).
  ///
  /// - Parameter bytes: UTF-8 encoded JSON text.
  /// - Returns: The value.
  /// - Throws: ``JSONError`` describing the first problem and its byte offset.
  public func read(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
    let result: Result<JSONValue, JSONError>? = bytes.withContiguousStorageIfAvailable { buffer in
      Result { () throws(JSONError) in try parseDocument(buffer) }
    }
    if let result { return try result.get() }
    let copy = Array(bytes)
    return try copy.withUnsafeBufferPointer { buffer throws(JSONError) in
      try parseDocument(buffer)
    }
  }

  /// Parses a document held in a `String`.
  public func read(_ text: String) throws(JSONError) -> JSONValue {
    try read(Array(text.utf8))
  }

  private func parseDocument(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
    let (nodes, memberOrder) = try TapeParser.parse(buffer, maximumDepth: maximumDepth)
    return nodes.withUnsafeBufferPointer { nodes in
      memberOrder.withUnsafeBufferPointer { memberOrder in
        JSONTape.View(bytes: buffer, nodes: nodes, memberOrder: memberOrder).value(JSONTape.root)
      }
    }
  }
}
