import Testing

@testable import ContentfulMirror

@Suite struct SyncPageTests {
  func page(
    _ items: String,
    next: String =
      #""nextSyncUrl": "https://cdn.contentful.com/spaces/s/environments/master/sync?sync_token=T1""#
  ) throws -> SyncPage {
    try SyncPage(
      decoding: Array(#"{"sys": {"type": "Array"}, "items": [\#(items)], \#(next)}"#.utf8))
  }

  @Test(arguments: [
    ("https://cdn.contentful.com/spaces/s/environments/master/sync?sync_token=abc", "abc"),
    ("http://cdn.contentful.com/spaces/s/sync?sync_token=w5Z-_x", "w5Z-_x"),
    ("https://elsewhere.example/sync?foo=1&sync_token=a%2Bb%3D", "a+b="),
  ])
  func theTokenIsTakenFromTheNextURLWhateverItsHost(_ url: String, _ token: String) throws {
    let decoded = try page("", next: #""nextPageUrl": "\#(url)""#)
    #expect(decoded.continuation == .nextPage(token: token))
  }

  @Test func aPageWithoutContinuationIsRejected() {
    #expect(throws: SyncError.self) { try SyncPage(decoding: Array(#"{"items": []}"#.utf8)) }
  }

  @Test func deletionsCarryOnlyTheirKey() throws {
    let decoded = try page(
      #"{"sys": {"type": "DeletedEntry", "id": "e1"}}, {"sys": {"type": "DeletedAsset", "id": "e1"}}"#
    )
    #expect(decoded.items.map(\.key) == [ItemKey(.entry, "e1"), ItemKey(.asset, "e1")])
  }

  @Test func anEntryWithoutContentTypeRejectsThePage() {
    #expect(throws: SyncError.self) {
      try page(#"{"sys": {"type": "Entry", "id": "e1"}, "fields": {}}"#)
    }
  }

  @Test func aDuplicateItemRejectsThePage() {
    let asset = #"{"sys": {"type": "Asset", "id": "a1"}, "fields": {}}"#
    #expect(throws: SyncError.self) { try page(asset + ", " + asset) }
  }

  @Test(arguments: ["../x", "a/b", "", String(repeating: "z", count: 65)])
  func anInvalidIdRejectsThePageNamingTheItem(_ id: String) {
    #expect {
      try page(#"{"sys": {"type": "Asset", "id": "\#(id)"}, "fields": {}}"#)
    } throws: { error in
      (error as? SyncError)?.code == .invalidIdentifier
    }
  }

  @Test func anInvalidLocaleCodeInFieldsRejectsThePage() {
    #expect(throws: SyncError.self) {
      try page(#"{"sys": {"type": "Asset", "id": "a1"}, "fields": {"title": {"../en": "x"}}}"#)
    }
  }

  @Test func eachItemKeepsTheExactBytesItArrivedWith() throws {
    let first = #"{ "sys" : {"type": "Asset", "id": "a1"}, "fields": {"t": {"en-US": 1.50}} }"#
    let second = #"{"sys":{"type":"DeletedEntry","id":"e1"}}"#
    let text =
      #"{"items": [ \#(first) ,\#n \#(second)], "nextSyncUrl": "https://x/sync?sync_token=T"}"#
    let page = try SyncPage(decoding: Array(text.utf8))
    guard case .upsert(let item) = page.items.first else {
      Issue.record("expected an upsert")
      return
    }
    #expect(item.rawJSON == Array(first.utf8))
    #expect(item.snapshotBytes == Array((first + "\n").utf8))
  }
}
