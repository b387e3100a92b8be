#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A JSON document read into a flat list of nodes that point into its bytes.
///
/// The sync's hot path works on tapes: reading a page allocates three arrays instead of a tree
/// of strings, arrays and objects, and canonical output copies runs of the source bytes instead
/// of re-encoding values (see ``CanonicalJSON``). A tape is validated exactly as strictly as
/// ``JSONReader`` (which materializes ``JSONValue``s from one), and it knows every object's
/// members in key code point order.
///
/// Nodes are in document order. A container's children follow it; `end` is the index just past a
/// node's subtree, so siblings are reached by jumping. An object's children alternate key
/// (a string node) and value.
public struct JSONTape: Sendable {
  /// What a node holds.
  enum Kind: UInt8, Sendable {
    case null, `true`, `false`, number
    /// A string without escapes: its bytes are its UTF-8 content, written back as they are.
    case string
    /// A string with at least one escape; decoded when read.
    case escapedString
    case array, object
  }

  /// One value (or object key) of the document.
  struct Node: Sendable {
    var kind: Kind
    /// Strings: the bytes between the quotes. Numbers and literals: the lexeme. Containers: from
    /// the opening to the closing bracket.
    var offset: UInt32
    var length: UInt32
    /// The index of the first node after this node's subtree.
    var end: UInt32
    /// Containers: the number of elements, or of members.
    var count: UInt32 = 0
    /// Objects: where this object's key node indices, in key order, start in `memberOrder`.
    var order: UInt32 = 0
  }

  /// The document's bytes.
  public let bytes: [UInt8]
  let nodes: [Node]
  /// For each object, its key nodes' indices sorted by key code point.
  let memberOrder: [UInt32]

  /// Reads `bytes` as one complete JSON document (surrounding whitespace allowed).
  ///
  /// - Throws: ``JSONError`` describing the first problem and its byte offset.
  public init(parsing bytes: [UInt8], maximumDepth: Int = 256) throws(JSONError) {
    let parsed = try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
      try TapeParser.parse(buffer, maximumDepth: maximumDepth)
    }
    self.bytes = bytes
    (nodes, memberOrder) = parsed
  }

  /// Calls `body` with a view of the tape, valid only during the call.
  func withView<Result, Failure>(_ body: (View) throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    let result: Swift.Result<Result, Failure> = bytes.withUnsafeBufferPointer { bytes in
      nodes.withUnsafeBufferPointer { nodes in
        memberOrder.withUnsafeBufferPointer { order in
          Swift.Result { () throws(Failure) in
            try body(View(bytes: bytes, nodes: nodes, memberOrder: order))
          }
        }
      }
    }
    return try result.get()
  }

  /// The node of the document's top-level value.
  static let root = 0

  /// Read access to a tape without reference counting, for the hot paths.
  struct View {
    let bytes: UnsafeBufferPointer<UInt8>
    let nodes: UnsafeBufferPointer<Node>
    let memberOrder: UnsafeBufferPointer<UInt32>

    func kind(_ node: Int) -> Kind { nodes[node].kind }

    /// The index just past `node`'s subtree: its next sibling, if it has one.
    func next(_ node: Int) -> Int { Int(nodes[node].end) }

    /// The node's bytes (see ``Node``).
    func slice(_ node: Int) -> UnsafeBufferPointer<UInt8> {
      let node = nodes[node]
      return UnsafeBufferPointer(rebasing: bytes[Int(node.offset)..<Int(node.offset + node.length)])
    }

    /// The key nodes of `object`'s members in key code point order (each value is the node
    /// after its key).
    func sortedKeys(of object: Int) -> UnsafeBufferPointer<UInt32> {
      let node = nodes[object]
      return UnsafeBufferPointer(
        rebasing: memberOrder[Int(node.order)..<Int(node.order + node.count)])
    }

    /// The value node of `object`'s member `key`, or `nil` when `object` is not an object or
    /// has no such member.
    func member(_ key: UnsafeBufferPointer<UInt8>, of object: Int) -> Int? {
      guard nodes[object].kind == .object else { return nil }
      var child = object + 1
      let end = next(object)
      while child < end {
        if keyEquals(child, key) { return child + 1 }
        child = next(child + 1)
      }
      return nil
    }

    /// The value node of `object`'s member `key`.
    func member(_ key: StaticString, of object: Int) -> Int? {
      member(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), of: object)
    }

    /// The object node of `object`'s member `key`, when that member is an object.
    func object(_ key: StaticString, of object: Int) -> Int? {
      guard let value = member(key, of: object), nodes[value].kind == .object else { return nil }
      return value
    }

    /// Whether string node `node` holds exactly the UTF-8 bytes `text`.
    func keyEquals(_ node: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
      switch nodes[node].kind {
      case .string:
        let own = slice(node)
        guard own.count == text.count else { return false }
        guard let left = own.baseAddress, let right = text.baseAddress else { return true }
        return memcmp(left, right, own.count) == 0
      case .escapedString:
        return decoded(node).elementsEqual(text)
      default:
        return false
      }
    }

    /// Whether `node` is the string `text`.
    func isString(_ node: Int, _ text: StaticString) -> Bool {
      keyEquals(node, UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether string node `node`'s text sorts before `text` in code point order.
    func precedes(_ node: Int, _ text: StaticString) -> Bool {
      let other = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
      guard nodes[node].kind == .string else {
        return decoded(node).lexicographicallyPrecedes(other)
      }
      return slice(node).lexicographicallyPrecedes(other)
    }

    /// The text of string node `node`, or `nil` for any other node.
    func string(_ node: Int) -> String? {
      switch nodes[node].kind {
      case .string: String(decoding: slice(node), as: UTF8.self)
      case .escapedString: String(decoding: decoded(node), as: UTF8.self)
      default: nil
      }
    }

    /// The UTF-8 content of a string node with its escapes decoded (already validated).
    func decoded(_ node: Int) -> [UInt8] {
      let raw = slice(node)
      guard nodes[node].kind == .escapedString else { return Array(raw) }
      var output: [UInt8] = []
      output.reserveCapacity(raw.count)
      Self.unescape(raw, run: { output.append(contentsOf: $0) }) { scalar in
        UTF8.encode(scalar) { output.append($0) }
      }
      return output
    }

    /// Walks the raw bytes of a string with escapes (validated by the parser): `run` gets each
    /// stretch without escapes, `character` the character each escape stands for.
    static func unescape(
      _ raw: UnsafeBufferPointer<UInt8>, run: (UnsafeBufferPointer<UInt8>) -> Void,
      character: (Unicode.Scalar) -> Void
    ) {
      var runStart = 0
      var index = 0
      while index < raw.count {
        guard raw[index] == UInt8(ascii: "\\") else {
          index += 1
          continue
        }
        run(UnsafeBufferPointer(rebasing: raw[runStart..<index]))
        let escape = raw[index + 1]
        index += 2
        var value: UInt32
        switch escape {
        case UInt8(ascii: "b"): value = 0x08
        case UInt8(ascii: "f"): value = 0x0C
        case UInt8(ascii: "n"): value = 0x0A
        case UInt8(ascii: "r"): value = 0x0D
        case UInt8(ascii: "t"): value = 0x09
        case UInt8(ascii: "u"):
          value = hex4(raw, at: index)
          index += 4
          if (0xD800...0xDBFF).contains(value) {
            value = 0x10000 + ((value - 0xD800) << 10) + (hex4(raw, at: index + 2) - 0xDC00)
            index += 6
          }
        default: value = UInt32(escape)  // `"`, `\` and `/`
        }
        if let scalar = Unicode.Scalar(value) { character(scalar) }
        runStart = index
      }
      run(UnsafeBufferPointer(rebasing: raw[runStart..<raw.count]))
    }

    /// The value of the four hex digits at `index` (already validated).
    private static func hex4(_ raw: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32 {
      var value: UInt32 = 0
      for byte in raw[index..<index + 4] {
        let digit = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : (byte | 0x20) - 87
        value = value << 4 | UInt32(digit)
      }
      return value
    }

    /// The value of `node` as a ``JSONValue`` tree.
    func value(_ node: Int) -> JSONValue {
      switch nodes[node].kind {
      case .null: return .null
      case .true: return .bool(true)
      case .false: return .bool(false)
      case .number: return .number(String(decoding: slice(node), as: UTF8.self))
      case .string, .escapedString: return .string(string(node) ?? "")
      case .array:
        var elements: [JSONValue] = []
        elements.reserveCapacity(Int(nodes[node].count))
        var child = node + 1
        while child < next(node) {
          elements.append(value(child))
          child = next(child)
        }
        return .array(elements)
      case .object:
        var members: [JSONObject.Member] = []
        members.reserveCapacity(Int(nodes[node].count))
        for key in sortedKeys(of: node) {
          members.append(JSONObject.Member(key: string(Int(key)) ?? "", value: value(Int(key) + 1)))
        }
        return .object(JSONObject(sortedMembers: members))
      }
    }
  }
}
