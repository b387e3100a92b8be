import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

/// Checks decoding and rendering against responses recorded from the real CDA, kept in
/// `../shared/fixtures/real/` (not part of this repository). Skipped, saying so, when absent.
@Suite struct RealFixtureConformanceTests {
  static let fixtures = RepositoryPaths.shared.map { $0 + "/fixtures/real" }

  static func json(_ path: String) throws -> JSONValue {
    try JSONReader().read(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
  }

  /// Every recorded response body that is a sync page.
  static func syncPages(under root: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: root)
    var pages: [String] = []
    while let relative = enumerator?.nextObject() as? String {
      guard relative.hasSuffix(".json") else { continue }
      let path = root + "/" + relative
      guard let value = try? json(path), value["items"] != nil,
        value["nextSyncUrl"] != nil || value["nextPageUrl"] != nil
      else { continue }
      pages.append(path)
    }
    return pages.sorted()
  }

  @Test func everyRecordedSyncPageDecodes() throws {
    guard let root = Self.fixtures else {
      print("skipped: ../shared/fixtures/real is not present in this checkout")
      return
    }
    let pages = Self.syncPages(under: root)
    #expect(pages.count >= 20, "expected the recorded sync pages, found \(pages.count)")
    var items = 0
    for path in pages {
      do {
        let page = try SyncPage(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        items += page.items.count
      } catch {
        Issue.record("\(path): \(error)")
      }
    }
    #expect(items > 100)
  }

  @Test func renderedDocumentsMatchTheRecordedSingleLocaleEntries() throws {
    guard let root = Self.fixtures else {
      print("skipped: ../shared/fixtures/real is not present in this checkout")
      return
    }
    // cfexampleapi: an initial sync (all locales), its content types, and GET /entries (en-US).
    let base = root + "/contentful.py"
    let sync = try SyncPage(
      decoding: Array(
        try Data(contentsOf: URL(fileURLWithPath: base + "/sync.yaml.extracted/01-GET-200.json"))))
    let types = try #require(
      try Self.json(base + "/content_types.yaml.extracted/01-GET-200.json")["items"]?.arrayValue)
    let summaries = types.compactMap { type -> ContentTypeSummary? in
      guard let id = type["sys"]?["id"]?.stringValue else { return nil }
      return ContentTypeSummary(
        id: id,
        fields: (type["fields"]?.arrayValue ?? []).compactMap { field in
          guard let fieldID = field["id"]?.stringValue else { return nil }
          return .init(
            id: fieldID, type: field["type"]?.stringValue ?? "",
            localized: field["localized"] == true)
        })
    }
    let model = SpaceModel(
      locales: [
        SpaceLocale(code: "en-US", isDefault: true),
        SpaceLocale(code: "tlh", fallbackCode: "en-US"),
      ],
      contentTypes: summaries)
    let renderer = DocumentRenderer(model: model)
    var synced: [ItemKey: SyncedItem] = [:]
    for case .upsert(let item) in sync.items { synced[item.key] = item }
    let entries = try #require(
      try Self.json(base + "/entries.yaml.extracted/01-GET-200.json")["items"]?.arrayValue)
    #expect(entries.count == 10)
    for recorded in entries {
      let id = try #require(recorded["sys"]?["id"]?.stringValue)
      let locale = try #require(recorded["sys"]?["locale"]?.stringValue)
      let item = try #require(
        synced[ItemKey(.entry, id)], "entry \(id) is not in the recorded sync")
      let document = renderer.document(for: item, locale: locale)
      #expect(document["fields"] == recorded["fields"], "fields of \(id) in \(locale)")
      for key in ["id", "type", "revision", "contentType", "createdAt", "updatedAt", "locale"] {
        #expect(document["sys"]?[key] == recorded["sys"]?[key], "sys.\(key) of \(id)")
      }
    }
  }
}
