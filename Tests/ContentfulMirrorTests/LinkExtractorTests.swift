import Testing

@testable import ContentfulMirror

@Suite struct LinkExtractorTests {
  func item(_ fields: String, kind: ItemKind = .entry) throws -> SyncedItem {
    let sys =
      kind == .entry
      ? #"{"id": "src", "type": "Entry", "contentType": {"sys": {"id": "post"}}}"#
      : #"{"id": "src", "type": "Asset"}"#
    let text = #"{"sys": \#(sys), "fields": \#(fields)}"#
    return try SyncedItem(raw: #require(try JSONReader().read(text).objectValue), kind: kind)
  }

  func link(_ type: String, _ id: String) -> String {
    #"{"sys": {"type": "Link", "linkType": "\#(type)", "id": "\#(id)"}}"#
  }

  @Test func singleAndArrayLinkFieldsInEveryLocaleAreFound() throws {
    let source = try item(
      #"{"author": {"en-US": \#(link("Entry", "a1"))}, "#
        + #""gallery": {"en-US": [\#(link("Asset", "i1"))], "de-DE": [\#(link("Asset", "i2"))]}}"#)
    #expect(
      LinkExtractor.targets(of: source) == [
        ItemKey(.asset, "i1"), ItemKey(.asset, "i2"), ItemKey(.entry, "a1"),
      ])
  }

  @Test func richTextEmbedsAndHyperlinksAreFound() throws {
    let body = """
      {"nodeType": "document", "data": {}, "content": [
        {"nodeType": "embedded-entry-block", "data": {"target": \(link("Entry", "e1"))}, "content": []},
        {"nodeType": "paragraph", "data": {}, "content": [
          {"nodeType": "entry-hyperlink", "data": {"target": \(link("Entry", "e2"))}, "content": []},
          {"nodeType": "embedded-entry-inline", "data": {"target": \(link("Entry", "e3"))}, "content": []},
          {"nodeType": "asset-hyperlink", "data": {"target": \(link("Asset", "a1"))}, "content": []},
          {"nodeType": "hyperlink", "data": {"uri": "https://example.com"}, "content": []}]},
        {"nodeType": "embedded-asset-block", "data": {"target": \(link("Asset", "a2"))}, "content": []}]}
      """
    let source = try item(#"{"body": {"en-US": \#(body)}}"#)
    #expect(
      LinkExtractor.targets(of: source).map(\.description) == [
        "Asset:a1", "Asset:a2", "Entry:e1", "Entry:e2", "Entry:e3",
      ])
  }

  @Test func anEntryAndAnAssetWithTheSameIdAreDistinctTargets() throws {
    let source = try item(
      #"{"x": {"en-US": [\#(link("Entry", "same")), \#(link("Asset", "same")), \#(link("Entry", "same"))]}}"#
    )
    #expect(
      LinkExtractor.targets(of: source) == [ItemKey(.asset, "same"), ItemKey(.entry, "same")])
  }

  @Test func aTargetLinkedFromSeveralFieldsAndLocalesIsListedOnce() throws {
    let source = try item(
      #"{"a": {"en-US": \#(link("Entry", "b")), "de-DE": \#(link("Entry", "b"))}, "#
        + #""c": {"en-US": [\#(link("Entry", "a")), \#(link("Entry", "b")), \#(link("Entry", "a"))]}, "#
        + #""d": {"fr-FR": \#(link("Entry", "b"))}}"#)
    #expect(LinkExtractor.targets(of: source) == [ItemKey(.entry, "a"), ItemKey(.entry, "b")])
  }

  @Test func linksToTagsSpacesAndContentTypesAreNotItemLinks() throws {
    let source = try item(
      #"{"x": {"en-US": [\#(link("Tag", "t")), \#(link("Space", "s")), \#(link("ContentType", "c"))]}}"#
    )
    #expect(LinkExtractor.targets(of: source).isEmpty)
  }

  @Test func linksInsideAnObjectWithANonLinkSysAreFoundAndTheObjectIsNot() throws {
    // A JSON field holding a resolved entry: its own `sys` is not a link, its fields' links are.
    let embedded =
      #"{"sys": {"type": "Entry", "id": "inner"}, "fields": {"hero": \#(link("Asset", "h"))}}"#
    let source = try item(#"{"json": {"en-US": [\#(embedded), 7, "text", null]}}"#)
    #expect(LinkExtractor.targets(of: source) == [ItemKey(.asset, "h")])
  }
}
