/// The locales consulted, in order, for a localized field's value in one locale.
///
/// Fallback applies only when the locale's key is absent: `null` and `""` are values.
public struct LocaleChain: Sendable, Hashable {
  /// The requested locale first, then its fallbacks.
  public var codes: [String]

  public init(codes: [String]) { self.codes = codes }

  /// The first value along the chain in a field's per-locale object, or `nil` if no locale on
  /// the chain has one.
  public func resolve(_ perLocale: JSONObject) -> JSONValue? {
    for code in codes {
      if let value = perLocale[code] { return value }
    }
    return nil
  }
}
