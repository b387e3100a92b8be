/// A strict, validating JSON reader working on UTF-8 bytes (RFC 8259).
///
/// Unlike Foundation's parsers it keeps number lexemes exactly, rejects duplicate keys, lone
/// surrogates, invalid UTF-8 and unescaped control characters, and bounds the nesting depth so
/// hostile input cannot exhaust the stack.
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
    var ranges: [Range<Int>] = []
    return try parseDocument(buffer, recordingRangesOf: nil, into: &ranges)
  }

  /// Parses a document whose top level is an object, also returning the byte ranges of the
  /// elements of its array member `key` (the `items` of a sync page), so each element's original
  /// bytes can be kept without encoding it again.
  func read(_ bytes: [UInt8], elementRangesOf key: String) throws(JSONError) -> (
    JSONValue, [Range<Int>]
  ) {
    var ranges: [Range<Int>] = []
    let value = try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
      try parseDocument(buffer, recordingRangesOf: key, into: &ranges)
    }
    return (value, ranges)
  }

  private func parseDocument(
    _ buffer: UnsafeBufferPointer<UInt8>, recordingRangesOf key: String?,
    into ranges: inout [Range<Int>]
  ) throws(JSONError) -> JSONValue {
    var parser = Parser(bytes: buffer, maximumDepth: maximumDepth)
    parser.recordedKey = key
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    if parser.position != buffer.count {
      throw JSONError(.trailingData, "unexpected data after the document", offset: parser.position)
    }
    ranges = parser.recordedRanges
    return value
  }
}

private struct Parser {
  let bytes: UnsafeBufferPointer<UInt8>
  let maximumDepth: Int
  var position = 0
  var scratch: [UInt8] = []
  /// A top-level member whose array elements' byte ranges are recorded.
  var recordedKey: String?
  var recordedRanges: [Range<Int>] = []

  init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  func fail(_ code: JSONError.Code, _ message: String) -> JSONError {
    JSONError(code, message, offset: position)
  }

  func peek() throws(JSONError) -> UInt8 {
    guard position < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
    return bytes[position]
  }

  mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
    switch try peek() {
    case UInt8(ascii: "{"): return .object(try parseObject(depth: depth + 1))
    case UInt8(ascii: "["): return .array(try parseArray(depth: depth + 1))
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return .number(try parseNumber())
    case let byte:
      throw fail(.unexpectedByte, "unexpected byte 0x\(String(byte, radix: 16))")
    }
  }

  mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
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

  mutating func parseObject(depth: Int) throws(JSONError) -> JSONObject {
    guard depth <= maximumDepth else {
      throw fail(.tooDeep, "nesting deeper than \(maximumDepth) levels")
    }
    position += 1
    var members: [JSONObject.Member] = []
    skipWhitespace()
    if try peek() == UInt8(ascii: "}") {
      position += 1
      return JSONObject()
    }
    while true {
      skipWhitespace()
      guard try peek() == UInt8(ascii: "\"") else {
        throw fail(.unexpectedByte, "expected a string key")
      }
      let key = try parseString()
      skipWhitespace()
      guard try peek() == UInt8(ascii: ":") else { throw fail(.unexpectedByte, "expected ':'") }
      position += 1
      skipWhitespace()
      let value: JSONValue
      if depth == 1, let recordedKey, key == recordedKey, try peek() == UInt8(ascii: "[") {
        value = .array(try parseArray(depth: depth + 1, recordingRanges: true))
      } else {
        value = try parseValue(depth: depth)
      }
      members.append(JSONObject.Member(key: key, value: value))
      skipWhitespace()
      let next = try peek()
      position += 1
      if next == UInt8(ascii: "}") { break }
      guard next == UInt8(ascii: ",") else {
        position -= 1
        throw fail(.unexpectedByte, "expected ',' or '}'")
      }
    }
    do {
      return try JSONObject(members: members)
    } catch {
      throw JSONError(error.code, error.message, offset: position)
    }
  }

  mutating func parseArray(depth: Int, recordingRanges: Bool = false) throws(JSONError)
    -> [JSONValue]
  {
    guard depth <= maximumDepth else {
      throw fail(.tooDeep, "nesting deeper than \(maximumDepth) levels")
    }
    position += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if try peek() == UInt8(ascii: "]") {
      position += 1
      return elements
    }
    while true {
      skipWhitespace()
      let start = position
      elements.append(try parseValue(depth: depth))
      if recordingRanges { recordedRanges.append(start..<position) }
      skipWhitespace()
      let next = try peek()
      position += 1
      if next == UInt8(ascii: "]") { return elements }
      guard next == UInt8(ascii: ",") else {
        position -= 1
        throw fail(.unexpectedByte, "expected ',' or ']'")
      }
    }
  }

  mutating func parseNumber() throws(JSONError) -> String {
    let start = position
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
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
  }

  func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

  mutating func skipDigits() {
    while position < bytes.count, isDigit(bytes[position]) { position += 1 }
  }

  /// Reads a string; the fast path (no escapes) validates UTF-8 on the slice directly.
  mutating func parseString() throws(JSONError) -> String {
    position += 1
    let start = position
    var nonASCII: UInt8 = 0
    while position < bytes.count {
      let byte = bytes[position]
      nonASCII |= byte
      if byte == UInt8(ascii: "\"") {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
        position += 1
        // ASCII needs no validation; anything else is checked strictly.
        if nonASCII < 0x80 { return String(decoding: slice, as: UTF8.self) }
        return try makeString(slice, offset: start)
      }
      if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
      if byte < 0x20 { throw fail(.controlCharacterInString, "unescaped control character") }
      position += 1
    }
    throw fail(.unexpectedEnd, "unterminated string")
  }

  mutating func parseEscapedString(from start: Int) throws(JSONError) -> String {
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
    while position < bytes.count {
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        let result: Result<String, JSONError> = scratch.withUnsafeBufferPointer { buffer in
          Result { () throws(JSONError) in try makeString(buffer, offset: start) }
        }
        return try result.get()
      case UInt8(ascii: "\\"):
        try appendEscape()
      case 0..<0x20:
        throw fail(.controlCharacterInString, "unescaped control character")
      default:
        scratch.append(byte)
        position += 1
      }
    }
    throw fail(.unexpectedEnd, "unterminated string")
  }

  mutating func appendEscape() throws(JSONError) {
    position += 1
    guard position < bytes.count else { throw fail(.unexpectedEnd, "unterminated escape") }
    let byte = bytes[position]
    position += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
    case UInt8(ascii: "b"): scratch.append(0x08)
    case UInt8(ascii: "f"): scratch.append(0x0C)
    case UInt8(ascii: "n"): scratch.append(0x0A)
    case UInt8(ascii: "r"): scratch.append(0x0D)
    case UInt8(ascii: "t"): scratch.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try readHex4()
      if (0xD800...0xDBFF).contains(scalar) {
        guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
          bytes[position + 1] == UInt8(ascii: "u")
        else { throw fail(.invalidUnicode, "lone high surrogate") }
        position += 2
        let low = try readHex4()
        guard (0xDC00...0xDFFF).contains(low) else {
          throw fail(.invalidUnicode, "high surrogate not followed by a low surrogate")
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw fail(.invalidUnicode, "lone low surrogate")
      }
      guard let unicode = Unicode.Scalar(scalar) else {
        throw fail(.invalidUnicode, "invalid code point")
      }
      UTF8.encode(unicode) { scratch.append($0) }
    default:
      position -= 1
      throw fail(.invalidEscape, "invalid escape \\\(Character(Unicode.Scalar(byte)))")
    }
  }

  mutating func readHex4() throws(JSONError) -> UInt32 {
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

  func makeString(_ buffer: UnsafeBufferPointer<UInt8>, offset: Int) throws(JSONError) -> String {
    guard let string = String(validating: buffer, as: UTF8.self) else {
      throw JSONError(.invalidUnicode, "invalid UTF-8 in string", offset: offset)
    }
    return string
  }
}
