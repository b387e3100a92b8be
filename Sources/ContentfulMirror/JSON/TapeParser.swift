#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Builds a ``JSONTape`` from UTF-8 bytes, validating strictly (RFC 8259).
///
/// Unlike Foundation's parsers it keeps number lexemes exactly, rejects duplicate keys, lone
/// surrogates, invalid UTF-8 and unescaped control characters, and bounds the nesting depth so
/// hostile input cannot exhaust the stack. Nothing is decoded: strings are validated in place and
/// recorded as ranges.
struct TapeParser {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let maximumDepth: Int
  private var position = 0
  private var nodes: [JSONTape.Node] = []
  private var memberOrder: [UInt32] = []
  /// The key nodes of the objects being read, innermost last.
  private var pendingKeys: [UInt32] = []

  /// Parses one complete document.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) throws(JSONError)
    -> (nodes: [JSONTape.Node], memberOrder: [UInt32])
  {
    guard bytes.count < Int(UInt32.max) else {
      throw JSONError(.unexpectedByte, "documents of 4 GiB or more are not supported")
    }
    var parser = TapeParser(bytes: bytes, maximumDepth: maximumDepth)
    // About one node per 11 bytes in compact sync pages, fewer in indented ones: one allocation.
    parser.nodes.reserveCapacity(bytes.count / 8 + 4)
    parser.memberOrder.reserveCapacity(bytes.count / 20 + 4)
    parser.skipWhitespace()
    try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    if parser.position != bytes.count {
      throw JSONError(.trailingData, "unexpected data after the document", offset: parser.position)
    }
    return (parser.nodes, parser.memberOrder)
  }

  private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  private mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  private func fail(_ code: JSONError.Code, _ message: String) -> JSONError {
    JSONError(code, message, offset: position)
  }

  private func peek() throws(JSONError) -> UInt8 {
    guard position < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
    return bytes[position]
  }

  /// Appends a leaf node covering `start..<position`.
  private mutating func appendLeaf(_ kind: JSONTape.Kind, from start: Int) {
    let index = UInt32(nodes.count)
    nodes.append(
      JSONTape.Node(
        kind: kind, offset: UInt32(start), length: UInt32(position - start), end: index + 1))
  }

  private mutating func parseValue(depth: Int) throws(JSONError) {
    let start = position
    switch try peek() {
    case UInt8(ascii: "{"): try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): try parseString()
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      appendLeaf(.true, from: start)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      appendLeaf(.false, from: start)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      appendLeaf(.null, from: start)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      try parseNumber()
      appendLeaf(.number, from: start)
    case let byte:
      throw fail(.unexpectedByte, "unexpected byte 0x\(String(byte, radix: 16))")
    }
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
    let count = literal.utf8CodeUnitCount
    guard bytes.count - position >= count else {
      throw fail(.unexpectedEnd, "unexpected end of input in literal")
    }
    let start = literal.utf8Start
    for index in 0..<count where bytes[position + index] != start[index] {
      throw fail(.unexpectedByte, "invalid literal")
    }
    position += count
  }

  /// Opens a container node; its `end`, `length` and `count` are filled in by `close`.
  private mutating func open(_ kind: JSONTape.Kind, depth: Int) throws(JSONError) -> Int {
    guard depth <= maximumDepth else {
      throw fail(.tooDeep, "nesting deeper than \(maximumDepth) levels")
    }
    nodes.append(JSONTape.Node(kind: kind, offset: UInt32(position), length: 0, end: 0))
    position += 1
    return nodes.count - 1
  }

  private mutating func close(_ node: Int, count: Int) {
    nodes[node].end = UInt32(nodes.count)
    nodes[node].length = UInt32(position) - nodes[node].offset
    nodes[node].count = UInt32(count)
  }

  private mutating func parseObject(depth: Int) throws(JSONError) {
    let node = try open(.object, depth: depth)
    let firstKey = pendingKeys.count
    skipWhitespace()
    if try peek() == UInt8(ascii: "}") {
      position += 1
      nodes[node].order = UInt32(memberOrder.count)
      return close(node, count: 0)
    }
    while true {
      skipWhitespace()
      guard try peek() == UInt8(ascii: "\"") else {
        throw fail(.unexpectedByte, "expected a string key")
      }
      pendingKeys.append(UInt32(nodes.count))
      try parseString()
      skipWhitespace()
      guard try peek() == UInt8(ascii: ":") else { throw fail(.unexpectedByte, "expected ':'") }
      position += 1
      skipWhitespace()
      try parseValue(depth: depth)
      skipWhitespace()
      let next = try peek()
      position += 1
      if next == UInt8(ascii: "}") { break }
      guard next == UInt8(ascii: ",") else {
        position -= 1
        throw fail(.unexpectedByte, "expected ',' or '}'")
      }
    }
    let count = pendingKeys.count - firstKey
    nodes[node].order = UInt32(memberOrder.count)
    close(node, count: count)
    try sortKeys(from: firstKey)
  }

  /// Moves the object's pending keys, sorted by code point, to `memberOrder`; rejects a key that
  /// appears twice.
  private mutating func sortKeys(from first: Int) throws(JSONError) {
    let count = pendingKeys.count - first
    guard count > 1 else {
      // Most objects of a sync page have one key (a locale, or `sys` in a link).
      if count == 1 { memberOrder.append(pendingKeys.removeLast()) }
      return
    }
    let bytes = self.bytes
    let duplicate: UInt32? = nodes.withUnsafeBufferPointer { nodes in
      pendingKeys.withUnsafeMutableBufferPointer { pending in
        let comparator = KeyComparator(bytes: bytes, nodes: nodes)
        let keys = UnsafeMutableBufferPointer(rebasing: pending[first...])
        comparator.sort(keys)
        for index in 1..<keys.count where comparator.compare(keys[index - 1], keys[index]) == 0 {
          return keys[index]
        }
        return nil
      }
    }
    if let duplicate {
      let text = nodes.withUnsafeBufferPointer { nodes in
        String(
          decoding: KeyComparator(bytes: bytes, nodes: nodes).decodedKey(duplicate), as: UTF8.self
        )
      }
      throw JSONError(.duplicateKey, "duplicate key \"\(text)\"", offset: position)
    }
    for index in first..<pendingKeys.count { memberOrder.append(pendingKeys[index]) }
    pendingKeys.removeLast(count)
  }

  private mutating func parseArray(depth: Int) throws(JSONError) {
    let node = try open(.array, depth: depth)
    var count = 0
    skipWhitespace()
    if try peek() == UInt8(ascii: "]") {
      position += 1
      return close(node, count: 0)
    }
    while true {
      skipWhitespace()
      try parseValue(depth: depth)
      count += 1
      skipWhitespace()
      let next = try peek()
      position += 1
      if next == UInt8(ascii: "]") { return close(node, count: count) }
      guard next == UInt8(ascii: ",") else {
        position -= 1
        throw fail(.unexpectedByte, "expected ',' or ']'")
      }
    }
  }

  private mutating func parseNumber() throws(JSONError) {
    if bytes[position] == UInt8(ascii: "-") { position += 1 }
    guard position < bytes.count else { throw fail(.invalidNumber, "number without digits") }
    if bytes[position] == UInt8(ascii: "0") {
      position += 1
    } else if isDigit(bytes[position]) {
      skipDigits()
    } else {
      throw fail(.invalidNumber, "number without digits")
    }
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      position += 1
      guard position < bytes.count, isDigit(bytes[position]) else {
        throw fail(.invalidNumber, "fraction without digits")
      }
      skipDigits()
    }
    if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
      position += 1
      if position < bytes.count,
        bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
      {
        position += 1
      }
      guard position < bytes.count, isDigit(bytes[position]) else {
        throw fail(.invalidNumber, "exponent without digits")
      }
      skipDigits()
    }
    if position < bytes.count, isDigit(bytes[position]) {
      throw fail(.invalidNumber, "leading zero in number")
    }
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

  private mutating func skipDigits() {
    while position < bytes.count, isDigit(bytes[position]) { position += 1 }
  }

  /// Validates a string in place and records it: escapes are checked, not decoded.
  private mutating func parseString() throws(JSONError) {
    position += 1
    let start = position
    var nonASCII: UInt8 = 0
    var escaped = false
    while position < bytes.count {
      let byte = bytes[position]
      nonASCII |= byte
      switch byte {
      case UInt8(ascii: "\""):
        let content = UnsafeBufferPointer(rebasing: bytes[start..<position])
        // Escapes are ASCII, so the raw content is valid UTF-8 exactly when the decoded one is.
        if nonASCII >= 0x80 && !UTF8Validation.isValid(content) {
          throw JSONError(.invalidUnicode, "invalid UTF-8 in string", offset: start)
        }
        appendLeaf(escaped ? .escapedString : .string, from: start)
        position += 1
        return
      case UInt8(ascii: "\\"):
        escaped = true
        try checkEscape()
      case 0..<0x20:
        throw fail(.controlCharacterInString, "unescaped control character")
      default:
        position += 1
      }
    }
    throw fail(.unexpectedEnd, "unterminated string")
  }

  private mutating func checkEscape() throws(JSONError) {
    position += 1
    guard position < bytes.count else { throw fail(.unexpectedEnd, "unterminated escape") }
    let byte = bytes[position]
    position += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
      UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      return
    case UInt8(ascii: "u"):
      let scalar = try readHex4()
      if (0xD800...0xDBFF).contains(scalar) {
        guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
          bytes[position + 1] == UInt8(ascii: "u")
        else { throw fail(.invalidUnicode, "lone high surrogate") }
        position += 2
        let low = try readHex4()
        guard (0xDC00...0xDFFF).contains(low) else {
          throw fail(.invalidUnicode, "high surrogate not followed by a low surrogate")
        }
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw fail(.invalidUnicode, "lone low surrogate")
      }
    default:
      position -= 1
      throw fail(.invalidEscape, "invalid escape \\\(Character(Unicode.Scalar(byte)))")
    }
  }

  private mutating func readHex4() throws(JSONError) -> UInt32 {
    guard bytes.count - position >= 4 else { throw fail(.unexpectedEnd, "short \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw fail(.invalidEscape, "invalid hex digit in \\u escape")
      }
      value = value << 4 | UInt32(digit)
      position += 1
    }
    return value
  }
}

/// Orders object keys by the code points of their decoded text (for UTF-8, byte order).
private struct KeyComparator {
  let bytes: UnsafeBufferPointer<UInt8>
  let nodes: UnsafeBufferPointer<JSONTape.Node>

  func compare(_ lhs: UInt32, _ rhs: UInt32) -> Int {
    let left = nodes[Int(lhs)]
    let right = nodes[Int(rhs)]
    guard left.kind == .string && right.kind == .string else {
      let a = decodedKey(lhs)
      let b = decodedKey(rhs)
      if a == b { return 0 }
      return a.lexicographicallyPrecedes(b) ? -1 : 1
    }
    let common = Int(min(left.length, right.length))
    if common > 0, let base = bytes.baseAddress {
      // Most keys of an object differ in their first byte: no call to `memcmp` for those.
      let leftFirst = base[Int(left.offset)]
      let rightFirst = base[Int(right.offset)]
      if leftFirst != rightFirst { return Int(leftFirst) - Int(rightFirst) }
      let order = memcmp(base + Int(left.offset), base + Int(right.offset), common)
      if order != 0 { return Int(order) }
    }
    return Int(left.length) - Int(right.length)
  }

  /// Sorts key nodes in place: insertion sort for the few keys most objects have.
  func sort(_ keys: UnsafeMutableBufferPointer<UInt32>) {
    guard keys.count <= 16 else {
      var keys = keys
      return keys.sort { compare($0, $1) < 0 }
    }
    for index in 1..<keys.count {
      let key = keys[index]
      var slot = index
      while slot > 0 && compare(key, keys[slot - 1]) < 0 {
        keys[slot] = keys[slot - 1]
        slot -= 1
      }
      keys[slot] = key
    }
  }

  func decodedKey(_ key: UInt32) -> [UInt8] {
    let view = JSONTape.View(
      bytes: bytes, nodes: nodes, memberOrder: UnsafeBufferPointer(start: nil, count: 0))
    return view.decoded(Int(key))
  }
}
