/// The mirror's `manifest.json`: what the mirror is of, and the token that continues it.
///
/// It is written last at the end of every sync, atomically, after everything it covers is on
/// disk: the token in it never runs ahead of the files. It holds no access token. The item and
/// link index are sharded beside it under `index/` (see ``IndexStore``) so that a delta rewrites
/// only the rows it changes; the manifest itself stays a few kilobytes whatever the space size.
public struct Manifest: Sendable, Hashable {
  /// The format this build writes and reads.
  public static let currentFormat = 1

  public var space: String
  public var environment: String
  /// The CDA host or base URL the mirror syncs from.
  public var host: String
  public var syncToken: String
  public var model: SpaceModel
  /// The locales mirrored; `nil` means every locale of the space.
  public var localeFilter: [String]?
  /// Number of entries per content type.
  public var entryCounts: [String: Int]
  public var assetCount: Int

  public init(
    space: String, environment: String, host: String, syncToken: String, model: SpaceModel,
    localeFilter: [String]?, entryCounts: [String: Int] = [:], assetCount: Int = 0
  ) {
    self.space = space
    self.environment = environment
    self.host = host
    self.syncToken = syncToken
    self.model = model
    self.localeFilter = localeFilter
    self.entryCounts = entryCounts
    self.assetCount = assetCount
  }

  /// The locale codes that have documents, in the space's order.
  public var mirroredLocales: [String] {
    Self.mirroredLocales(of: model, filter: localeFilter)
  }

  static func mirroredLocales(of model: SpaceModel, filter: [String]?) -> [String] {
    let all = model.locales.map(\.code)
    guard let filter else { return all }
    return all.filter(filter.contains)
  }

  // MARK: JSON

  /// The manifest as canonical JSON.
  public var json: JSONValue {
    var object = JSONObject()
    object["format"] = .number(String(Self.currentFormat))
    object["space"] = .string(space)
    object["environment"] = .string(environment)
    object["host"] = .string(host)
    object["syncToken"] = .string(syncToken)
    object["locales"] = .array(model.locales.map(Self.json(for:)))
    object["mirroredLocales"] = .array(mirroredLocales.map(JSONValue.string))
    if let localeFilter { object["localeFilter"] = .array(localeFilter.map(JSONValue.string)) }
    var types = JSONObject()
    for (id, type) in model.contentTypes { types[id] = Self.json(for: type) }
    object["contentTypes"] = .object(types)
    var counts = JSONObject()
    for (id, count) in entryCounts where count > 0 { counts[id] = .number(String(count)) }
    object["counts"] = .object(
      JSONObject([
        "assets": .number(String(assetCount)),
        "entries": .object(counts),
        "entriesTotal": .number(String(entryCounts.values.reduce(0, +))),
      ]))
    object["index"] = .object(
      JSONObject([
        "shards": .number(String(IndexStore.shardCount)),
        "shardOf":
          "FNV-1a 32-bit of the UTF-8 key \"Entry:<id>\" or \"Asset:<id>\", modulo shards, as 3 lowercase hex digits",
        "items": "index/items/<shard>.json",
        "links": "index/links/<shard>.json",
      ]))
    return .object(object)
  }

  /// Reads a manifest.
  ///
  /// - Throws: ``MirrorError`` `.corrupt` with recovery advice when it is not one this build can use.
  public init(json value: JSONValue) throws(MirrorError) {
    func corrupt(_ detail: String) -> MirrorError {
      MirrorError(
        .corrupt,
        "manifest.json is not usable (\(detail)); run `contentful-mirror sync --full` to rebuild the mirror"
      )
    }
    guard let format = value["format"]?.intValue else { throw corrupt("no format version") }
    guard format == Self.currentFormat else {
      throw corrupt("format \(format), this build reads format \(Self.currentFormat)")
    }
    guard let space = value["space"]?.stringValue,
      let environment = value["environment"]?.stringValue,
      let host = value["host"]?.stringValue, let token = value["syncToken"]?.stringValue,
      let localeValues = value["locales"]?.arrayValue,
      let types = value["contentTypes"]?.objectValue
    else { throw corrupt("a required key is missing") }
    var locales: [SpaceLocale] = []
    for locale in localeValues {
      guard let code = locale["code"]?.stringValue, Identifier.isValidLocaleCode(code) else {
        throw corrupt("a locale without a valid code")
      }
      locales.append(
        SpaceLocale(
          code: code, isDefault: locale["default"] == .bool(true),
          fallbackCode: locale["fallbackCode"]?.stringValue))
    }
    var summaries: [ContentTypeSummary] = []
    for member in types.members {
      summaries.append(try Self.contentType(id: member.key, from: member.value, corrupt: corrupt))
    }
    self.space = space
    self.environment = environment
    self.host = host
    self.syncToken = token
    self.model = SpaceModel(locales: locales, contentTypes: summaries)
    self.localeFilter = value["localeFilter"]?.arrayValue?.compactMap(\.stringValue)
    var counts: [String: Int] = [:]
    for member in value["counts"]?["entries"]?.objectValue?.members ?? [] {
      counts[member.key] = member.value.intValue ?? 0
    }
    self.entryCounts = counts
    self.assetCount = value["counts"]?["assets"]?.intValue ?? 0
  }

  static func json(for locale: SpaceLocale) -> JSONValue {
    .object(
      JSONObject([
        "code": .string(locale.code),
        "default": .bool(locale.isDefault),
        "fallbackCode": locale.fallbackCode.map(JSONValue.string) ?? .null,
      ]))
  }

  static func json(for type: ContentTypeSummary) -> JSONValue {
    var object = JSONObject()
    if let name = type.name { object["name"] = .string(name) }
    object["displayField"] = type.displayField.map(JSONValue.string) ?? .null
    object["fields"] = .array(
      type.fields.map { field in
        var entry = JSONObject()
        entry["id"] = .string(field.id)
        entry["type"] = .string(field.type)
        entry["localized"] = .bool(field.localized)
        if let linkType = field.linkType { entry["linkType"] = .string(linkType) }
        if let itemsType = field.itemsType { entry["itemsType"] = .string(itemsType) }
        return .object(entry)
      })
    return .object(object)
  }

  private static func contentType(
    id: String, from value: JSONValue, corrupt: (String) -> MirrorError
  ) throws(MirrorError) -> ContentTypeSummary {
    guard let fields = value["fields"]?.arrayValue else {
      throw corrupt("content type \(id) has no fields")
    }
    return ContentTypeSummary(
      id: id, name: value["name"]?.stringValue, displayField: value["displayField"]?.stringValue,
      fields: fields.compactMap { field in
        guard let fieldID = field["id"]?.stringValue, let type = field["type"]?.stringValue else {
          return nil
        }
        return ContentTypeSummary.Field(
          id: fieldID, type: type, localized: field["localized"] == .bool(true),
          linkType: field["linkType"]?.stringValue, itemsType: field["itemsType"]?.stringValue)
      })
  }
}
