/// A JSON value as read by ``JSONReader``: exact, ordered and lossless.
///
/// Numbers keep the lexeme the producer wrote (`1.50`, `-0`, `1e400`) so they are written back
/// byte for byte, never rounded through `Double`. Objects keep their members sorted by key
/// code point (see ``JSONObject``), which is also the canonical output order.
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  /// A number, as the exact lexeme from the input (already validated against the JSON grammar).
  case number(String)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  /// The object, when this value is one.
  public var objectValue: JSONObject? {
    if case .object(let object) = self { return object }
    return nil
  }

  /// The array, when this value is one.
  public var arrayValue: [JSONValue]? {
    if case .array(let array) = self { return array }
    return nil
  }

  /// The string, when this value is one.
  public var stringValue: String? {
    if case .string(let string) = self { return string }
    return nil
  }

  /// The number's lexeme parsed as an integer, when this value is an integral number.
  public var intValue: Int? {
    if case .number(let lexeme) = self { return Int(lexeme) }
    return nil
  }

  /// Looks up a member when this value is an object; `nil` for any other value.
  public subscript(key: String) -> JSONValue? {
    objectValue?[key]
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByNilLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(integerLiteral value: Int) { self = .number(String(value)) }
  public init(nilLiteral: ()) { self = .null }
}
