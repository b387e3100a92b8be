/// A JSON document that could not be read.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of problem was found.
  public enum Code: Sendable, Hashable {
    case unexpectedEnd
    case unexpectedByte
    case invalidNumber
    case invalidEscape
    case invalidUnicode
    case controlCharacterInString
    case duplicateKey
    case tooDeep
    case trailingData
  }

  /// The kind of problem.
  public var code: Code
  /// A human readable explanation naming the offending part.
  public var message: String
  /// The byte offset in the input where the problem was found, when known.
  public var offset: Int?

  public init(_ code: Code, _ message: String, offset: Int? = nil) {
    self.code = code
    self.message = message
    self.offset = offset
  }

  public var description: String {
    if let offset { return "invalid JSON at byte \(offset): \(message)" }
    return "invalid JSON: \(message)"
  }
}
