/// A locale of the space as `/locales` describes it.
public struct SpaceLocale: Sendable, Hashable {
  /// The locale code, e.g. `de-DE`.
  public var code: String
  /// Whether this is the space's default locale.
  public var isDefault: Bool
  /// The locale whose values are used when a localized field has none in this one.
  public var fallbackCode: String?

  public init(code: String, isDefault: Bool = false, fallbackCode: String? = nil) {
    self.code = code
    self.isDefault = isDefault
    self.fallbackCode = fallbackCode
  }
}
