import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

@Suite struct DocumentRendererTests {
  /// en-US (default) ← de-DE ← de-AT; fr-FR has no fallback.
  let model = SpaceModel(
    locales: [
      SpaceLocale(code: "en-US", isDefault: true),
      SpaceLocale(code: "de-DE", fallbackCode: "en-US"),
      SpaceLocale(code: "de-AT", fallbackCode: "de-DE"),
      SpaceLocale(code: "fr-FR"),
    ],
    contentTypes: [
      ContentTypeSummary(
        id: "post",
        fields: [
          .init(id: "title", type: "Symbol", localized: true),
          .init(id: "slug", type: "Symbol", localized: false),
          .init(id: "summary", type: "Text", localized: true),
        ])
    ])

  func entry(_ fields: String) throws -> SyncedItem {
    let text = """
      {"metadata": {"tags": []}, "sys": {"id": "p1", "type": "Entry", "revision": 2,
       "contentType": {"sys": {"type": "Link", "linkType": "ContentType", "id": "post"}}},
       "fields": \(fields)}
      """
    return try SyncedItem(raw: #require(try JSONReader().read(text).objectValue), kind: .entry)
  }

  func render(_ item: SyncedItem, _ locale: String) -> JSONValue {
    DocumentRenderer(model: model).document(for: item, locale: locale)
  }

  @Test func localizedFieldsFollowTheFallbackChain() throws {
    let item = try entry(#"{"title": {"en-US": "Hello", "de-DE": "Hallo"}}"#)
    #expect(render(item, "de-AT")["fields"]?["title"] == "Hallo")
    #expect(render(item, "de-DE")["fields"]?["title"] == "Hallo")
    #expect(render(item, "en-US")["fields"]?["title"] == "Hello")
  }

  @Test func aLocaleWithoutFallbackHasNoValueWhenItsKeyIsMissing() throws {
    let item = try entry(#"{"title": {"en-US": "Hello"}}"#)
    #expect(render(item, "fr-FR")["fields"]?.objectValue?.isEmpty == true)
  }

  @Test func nullAndEmptyStringAreValuesNotGaps() throws {
    let item = try entry(
      #"{"title": {"en-US": "Hello", "de-DE": null}, "summary": {"en-US": "S", "de-DE": ""}}"#)
    #expect(render(item, "de-AT")["fields"]?["title"] == .null)
    #expect(render(item, "de-AT")["fields"]?["summary"] == "")
  }

  @Test func nonLocalizedFieldsAlwaysTakeTheDefaultLocaleValue() throws {
    let item = try entry(#"{"slug": {"en-US": "hello", "de-DE": "hallo"}}"#)
    #expect(render(item, "de-DE")["fields"]?["slug"] == "hello")
    #expect(render(item, "fr-FR")["fields"]?["slug"] == "hello")
  }

  @Test func fieldsWithNoValueAlongTheChainAreAbsent() throws {
    let item = try entry(#"{"summary": {"fr-FR": "Résumé"}}"#)
    #expect(render(item, "de-AT")["fields"]?["summary"] == nil)
    #expect(render(item, "fr-FR")["fields"]?["summary"] == "Résumé")
  }

  @Test func sysGetsTheLocaleAndEverythingElseIsKept() throws {
    let item = try entry(#"{"title": {"en-US": "Hello"}}"#)
    let document = render(item, "de-DE")
    #expect(document["sys"]?["locale"] == "de-DE")
    #expect(document["sys"]?["revision"] == 2)
    #expect(document["metadata"]?["tags"] == .array([]))
  }

  @Test func assetFieldsAreAllLocalized() throws {
    let text =
      #"{"sys": {"id": "a1", "type": "Asset"}, "fields": {"title": {"en-US": "T", "fr-FR": "F"}}}"#
    let asset = try SyncedItem(raw: #require(try JSONReader().read(text).objectValue), kind: .asset)
    #expect(render(asset, "fr-FR")["fields"]?["title"] == "F")
    #expect(render(asset, "de-AT")["fields"]?["title"] == "T")
  }

  @Test func fieldsUnknownToTheContentTypeRenderAsNonLocalized() throws {
    let item = try entry(#"{"extra": {"en-US": 1, "de-DE": 2}}"#)
    #expect(render(item, "de-DE")["fields"]?["extra"] == 1)
  }

  @Test func fallbackCyclesTerminate() {
    let cyclic = SpaceModel(
      locales: [
        SpaceLocale(code: "a", isDefault: true, fallbackCode: "b"),
        SpaceLocale(code: "b", fallbackCode: "a"),
      ], contentTypes: [])
    #expect(cyclic.chain(for: "a").codes == ["a", "b"])
  }
}

/// The fast encoder must give exactly the bytes of the reference renderer plus canonical writer.
@Suite struct DocumentEncodingTests {
  static func sampleItems() throws -> (SpaceModel, [SyncedItem]) {
    let root = RepositoryPaths.sampleSpace
    var items: [SyncedItem] = []
    for name in ["initial", "initial-p2", "initial-p3", "delta-1"] {
      let page = try SyncPage(
        decoding: Array(try Data(contentsOf: URL(fileURLWithPath: "\(root)/sync/\(name).json"))))
      for case .upsert(let item) in page.items { items.append(item) }
    }
    let locales = try #require(
      try JSONReader().read(
        Array(try Data(contentsOf: URL(fileURLWithPath: root + "/locales.json"))))["items"]?
        .arrayValue)
    let types = try #require(
      try JSONReader().read(
        Array(try Data(contentsOf: URL(fileURLWithPath: root + "/content_types.json"))))["items"]?
        .arrayValue)
    let model = SpaceModel(
      locales: locales.compactMap { locale in
        locale["code"]?.stringValue.map {
          SpaceLocale(
            code: $0, isDefault: locale["default"] == true,
            fallbackCode: locale["fallbackCode"]?.stringValue)
        }
      },
      contentTypes: types.compactMap { type in
        type["sys"]?["id"]?.stringValue.map { id in
          ContentTypeSummary(
            id: id,
            fields: (type["fields"]?.arrayValue ?? []).compactMap { field in
              field["id"]?.stringValue.map {
                .init(id: $0, type: "", localized: field["localized"] == true)
              }
            })
        }
      })
    return (model, items)
  }

  @Test func encodedDocumentsEqualTheCanonicalEncodingOfTheReferenceRendering() throws {
    let (model, items) = try Self.sampleItems()
    #expect(items.count == 25)
    let renderer = DocumentRenderer(model: model)
    let locales = model.locales.map(\.code) + ["xx-UNKNOWN"]
    for item in items {
      let fast = renderer.encodedDocuments(for: item, locales: locales)
      for (locale, bytes) in zip(locales, fast) {
        let reference = CanonicalJSON.encode(renderer.document(for: item, locale: locale))
        #expect(bytes == reference, "\(item.key) in \(locale)")
      }
    }
  }

  @Test(arguments: [
    #"{"sys": {"id": "a1"}, "fields": {}}"#,
    #"{"sys": {"id": "a1", "locale": "xx", "type": "Asset"}, "metadata": {"tags": []}}"#,
    #"{"sys": {"aaa": 1, "id": "a1", "zzz": [2]}, "fields": {"t": {"en-US": {}}}}"#,
  ])
  func sysEncodesTheLocaleInItsSortedPlace(_ text: String) throws {
    let item = try SyncedItem(raw: #require(try JSONReader().read(text).objectValue), kind: .asset)
    let model = SpaceModel(locales: [SpaceLocale(code: "en-US", isDefault: true)], contentTypes: [])
    let renderer = DocumentRenderer(model: model)
    let encoded = renderer.encodedDocuments(for: item, locales: ["en-US"])
    #expect(encoded == [CanonicalJSON.encode(renderer.document(for: item, locale: "en-US"))])
  }

  @Test func itemsReadWithEscapesEncodeAsTheirDecodedText() throws {
    // Escaped keys and values, a locale key spelled with an escape, and top-level members
    // sorting before `fields`, between `fields` and `sys`, and after `sys`.
    let text = #"""
      {"a": 1, "s\u0079s": {"id": "p1", "type": "Entry", "lo\u0063ale": "x",
       "contentType": {"sys": {"type": "Link", "linkType": "ContentType", "id": "post"}}},
       "zzz": [true], "m": {"\u00e9": "\/"},
       "fields": {"title": {"en\u002dUS": "caf\u00e9 \ud83d\ude00", "de-DE": "\"q\""},
                  "slug": {"en-US": "a\/b"}, "t\u0069tle2": {"fr-FR": 1}}}
      """#
    let item = try SyncedItem(json: Array(text.utf8), kind: .entry)
    let model = DocumentRendererTests().model
    let renderer = DocumentRenderer(model: model)
    let locales = model.locales.map(\.code)
    for (locale, bytes) in zip(locales, renderer.encodedDocuments(for: item, locales: locales)) {
      #expect(
        bytes == CanonicalJSON.encode(renderer.document(for: item, locale: locale)), "\(locale)")
    }
    let german = try JSONReader().read(renderer.encodedDocuments(for: item, locales: ["de-AT"])[0])
    #expect(german["fields"]?["title"] == .string("\"q\""))
    #expect(german["fields"]?["slug"] == .string("a/b"))
    #expect(german["sys"]?["locale"] == .string("de-AT"))
  }

  @Test func itemsWithExtraTopLevelKeysOrNoFieldsEncodeTheSame() throws {
    let text =
      #"{"sys": {"id": "a", "type": "Asset"}, "extra": {"b": [1, "x"]}, "fields": {"t": {"fr-FR": null}}}"#
    let item = try SyncedItem(raw: #require(try JSONReader().read(text).objectValue), kind: .asset)
    let model = SpaceModel(
      locales: [SpaceLocale(code: "en-US", isDefault: true), SpaceLocale(code: "fr-FR")],
      contentTypes: [])
    let renderer = DocumentRenderer(model: model)
    for (locale, bytes) in zip(
      ["en-US", "fr-FR"], renderer.encodedDocuments(for: item, locales: ["en-US", "fr-FR"]))
    {
      #expect(bytes == CanonicalJSON.encode(renderer.document(for: item, locale: locale)))
    }
  }
}
