/// Renders an all-locale item into the CDA's single-locale document for one locale.
///
/// The result is what `GET /entries/{id}?locale=<code>` returns: the item's `sys` with
/// `sys.locale` added, its `metadata` unchanged, and `fields` flattened: a localized field takes
/// the first value along the locale's fallback chain (absent if none); a non-localized field
/// always takes the default locale's value. Values are kept as sent: links stay links.
public struct DocumentRenderer: Sendable {
  public let model: SpaceModel
  private let chains: [String: LocaleChain]
  let defaultLocale: String
  /// The UTF-8 of ``defaultLocale``, and of each locale's chain, for lookups on tapes.
  let defaultLocaleBytes: [UInt8]
  private let chainsBytes: [String: [[UInt8]]]
  /// The UTF-8 ids of each content type's localized fields.
  let localizedFieldIDs: [String: [[UInt8]]]

  public init(model: SpaceModel) {
    self.model = model
    self.defaultLocale = model.defaultLocale ?? model.locales.first?.code ?? ""
    defaultLocaleBytes = Array(defaultLocale.utf8)
    var chains: [String: LocaleChain] = [:]
    for locale in model.locales { chains[locale.code] = model.chain(for: locale.code) }
    self.chains = chains
    chainsBytes = chains.mapValues { $0.codes.map { Array($0.utf8) } }
    localizedFieldIDs = model.contentTypes.mapValues { type in
      type.fields.filter(\.localized).map { Array($0.id.utf8) }
    }
  }

  /// The fallback chain of `locale` (just the locale itself when the space does not know it).
  func chain(for locale: String) -> LocaleChain {
    chains[locale] ?? LocaleChain(codes: [locale])
  }

  /// The UTF-8 codes of ``chain(for:)``.
  func chainBytes(for locale: String) -> [[UInt8]] {
    chainsBytes[locale] ?? [Array(locale.utf8)]
  }

  /// Whether a field takes per-locale values with fallback: every asset field does; an entry's
  /// field does when its content type says so (undeclared fields do not).
  static func isLocalized(_ field: String, of item: SyncedItem, contentType: ContentTypeSummary?)
    -> Bool
  {
    item.key.kind == .asset || (contentType?.isLocalized(field) ?? false)
  }

  /// The single-locale document of `item` in `locale`.
  public func document(for item: SyncedItem, locale: String) -> JSONValue {
    let chain = chain(for: locale)
    let contentType = item.contentTypeID.flatMap { model.contentTypes[$0] }
    var fields = JSONObject()
    for member in item.raw["fields"]?.objectValue?.members ?? [] {
      guard let perLocale = member.value.objectValue else { continue }
      let localized = Self.isLocalized(member.key, of: item, contentType: contentType)
      let value = localized ? chain.resolve(perLocale) : perLocale[defaultLocale]
      if let value { fields[member.key] = value }
    }
    var document = item.raw
    var sys = item.raw["sys"]?.objectValue ?? JSONObject()
    sys["locale"] = .string(locale)
    document["sys"] = .object(sys)
    document["fields"] = .object(fields)
    return .object(document)
  }
}
