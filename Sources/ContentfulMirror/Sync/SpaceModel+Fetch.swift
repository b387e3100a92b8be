extension SpaceModel {
  /// Fetches every locale and content type of the space, paging through both collections, and
  /// validates every code and id that will become a path or a key.
  ///
  /// - Throws: ``SyncError`` when a response is malformed or names an invalid id.
  public static func fetch(from source: any SpaceSource) async throws(SyncError) -> SpaceModel {
    var locales: [SpaceLocale] = []
    for item in try await collection(from: source, request: SourceRequest.locales, name: "locales")
    {
      guard let code = item["code"]?.stringValue else {
        throw SyncError(.invalidResponse, "a locale in /locales has no code")
      }
      try Identifier.validate(code, as: .localeCode, in: "/locales")
      let fallback = item["fallbackCode"]?.stringValue
      if let fallback { try Identifier.validate(fallback, as: .localeCode, in: "locale \(code)") }
      locales.append(
        SpaceLocale(code: code, isDefault: item["default"] == .bool(true), fallbackCode: fallback))
    }
    guard locales.contains(where: \.isDefault) else {
      throw SyncError(.invalidResponse, "/locales lists no default locale")
    }
    var types: [ContentTypeSummary] = []
    for item in try await collection(
      from: source, request: SourceRequest.contentTypes, name: "content_types")
    {
      guard let id = item["sys"]?["id"]?.stringValue else {
        throw SyncError(.invalidResponse, "a content type in /content_types has no sys.id")
      }
      try Identifier.validate(id, as: .contentTypeID, in: "/content_types")
      let fields = (item["fields"]?.arrayValue ?? []).compactMap {
        field -> ContentTypeSummary.Field? in
        guard let fieldID = field["id"]?.stringValue, let type = field["type"]?.stringValue else {
          return nil
        }
        return ContentTypeSummary.Field(
          id: fieldID, type: type, localized: field["localized"] == .bool(true),
          linkType: field["linkType"]?.stringValue ?? field["items"]?["linkType"]?.stringValue,
          itemsType: field["items"]?["type"]?.stringValue)
      }
      types.append(
        ContentTypeSummary(
          id: id, name: item["name"]?.stringValue, displayField: item["displayField"]?.stringValue,
          fields: fields))
    }
    return SpaceModel(locales: locales, contentTypes: types)
  }

  /// Every item of a CDA collection, following `total`/`skip`/`limit`.
  private static func collection(
    from source: any SpaceSource, request: (Int) -> SourceRequest, name: String
  ) async throws(SyncError) -> [JSONValue] {
    var items: [JSONValue] = []
    var skip = 0
    while true {
      let (page, pageItems) = try await source.fetch(request(skip)) {
        bytes throws(SyncError) -> (JSONValue, [JSONValue]) in
        let page: JSONValue
        do {
          page = try JSONReader().read(bytes)
        } catch {
          throw SyncError(
            .malformedResponse, "/\(name) is not valid JSON (\(error))", cause: error)
        }
        guard let pageItems = page["items"]?.arrayValue else {
          throw SyncError(.malformedResponse, "/\(name) has no items array")
        }
        return (page, pageItems)
      }
      items.append(contentsOf: pageItems)
      skip += pageItems.count
      let total = page["total"]?.intValue ?? items.count
      if pageItems.isEmpty || skip >= total { return items }
    }
  }

  /// What rendering depends on: locales, their fallbacks and which fields are localized.
  /// Two models with the same signature render every item to the same documents.
  var renderingSignature: JSONValue {
    var types = JSONObject()
    for (id, type) in contentTypes {
      types[id] = .array(type.fields.map { .string($0.id + ($0.localized ? ":localized" : "")) })
    }
    return .object(
      JSONObject([
        "locales": .array(locales.map(Manifest.json(for:))),
        "types": .object(types),
      ]))
  }
}
