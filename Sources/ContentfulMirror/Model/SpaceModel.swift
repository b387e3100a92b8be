/// The locales and content types of a space: everything rendering needs besides the items.
public struct SpaceModel: Sendable, Hashable {
  /// Every locale of the space, in the order `/locales` listed them.
  public var locales: [SpaceLocale]
  /// Content types by id.
  public var contentTypes: [String: ContentTypeSummary]

  public init(locales: [SpaceLocale], contentTypes: [ContentTypeSummary]) {
    self.locales = locales
    self.contentTypes = Dictionary(
      contentTypes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
  }

  /// The default locale's code.
  public var defaultLocale: String? { locales.first(where: \.isDefault)?.code }

  /// The fallback chain for `code`: the locale itself, its fallback, that one's fallback, and so
  /// on, stopping at a missing locale or a cycle.
  public func chain(for code: String) -> LocaleChain {
    var codes: [String] = []
    var next: String? = code
    let byCode = Dictionary(locales.map { ($0.code, $0) }, uniquingKeysWith: { a, _ in a })
    while let current = next, !codes.contains(current), let locale = byCode[current] {
      codes.append(current)
      next = locale.fallbackCode
    }
    return LocaleChain(codes: codes)
  }
}
