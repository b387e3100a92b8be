import MirrorTestSupport
import Testing

@testable import ContentfulMirror

@Suite struct IndexShardCodecTests {
  /// Deterministic rows with every optional member present and absent, empty and long link
  /// lists, and text that needs escaping.
  static func itemRows(_ count: Int, seed: UInt64) -> [ItemKey: IndexStore.ItemRow] {
    var generator = SplitMix64(seed: seed)
    var rows: [ItemKey: IndexStore.ItemRow] = [:]
    for index in 0..<count {
      let key = ItemKey(index % 3 == 0 ? .asset : .entry, "item\(generator.next() % 1000)")
      let links = (0..<Int(generator.next() % 7)).map { _ in
        ItemKey(generator.next() % 2 == 0 ? .entry : .asset, "t\(generator.next() % 50)")
      }
      rows[key] = IndexStore.ItemRow(
        contentType: index % 4 == 1 ? nil : ["post", "author", "odd\"type\\"][index % 3],
        revision: index % 5 == 2 ? nil : Int(generator.next() % 100),
        updatedAt: index % 6 == 3 ? nil : "2025-02-0\(index % 9)T00:00:00.000Z\n",
        linksTo: links)
    }
    return rows
  }

  static func linkRows(_ count: Int, seed: UInt64) -> [ItemKey: IndexStore.LinkRow] {
    var generator = SplitMix64(seed: seed)
    var rows: [ItemKey: IndexStore.LinkRow] = [:]
    for index in 0..<count {
      rows[ItemKey(index % 2 == 0 ? .entry : .asset, "x\(generator.next() % 500)")] =
        IndexStore.LinkRow(
          linkedFrom: Set(
            (0..<Int(generator.next() % 5)).map { _ in ItemKey(.entry, "f\(generator.next() % 40)")
            }),
          dangling: generator.next() % 3 == 0)
    }
    return rows
  }

  /// The shard as a JSON value, written the general way, to compare the codec with.
  static func reference(items rows: [ItemKey: IndexStore.ItemRow]) -> [UInt8] {
    var object = JSONObject()
    for (key, row) in rows {
      var entry = JSONObject()
      if let contentType = row.contentType { entry["contentType"] = .string(contentType) }
      if let revision = row.revision { entry["revision"] = .number(String(revision)) }
      if let updatedAt = row.updatedAt { entry["updatedAt"] = .string(updatedAt) }
      entry["linksTo"] = .array(row.linksTo.map { .string($0.description) })
      object[key.description] = .object(entry)
    }
    return CanonicalJSON.encode(.object(object))
  }

  static func reference(links rows: [ItemKey: IndexStore.LinkRow]) -> [UInt8] {
    var object = JSONObject()
    for (key, row) in rows {
      var entry = JSONObject()
      entry["linkedFrom"] = .array(row.linkedFrom.sorted().map { .string($0.description) })
      if row.dangling { entry["dangling"] = .bool(true) }
      object[key.description] = .object(entry)
    }
    return CanonicalJSON.encode(.object(object))
  }

  @Test(arguments: [0, 1, 2, 29, 300])
  func shardsAreWrittenInCanonicalFormAndReadBack(_ count: Int) throws {
    let items = Self.itemRows(count, seed: UInt64(count))
    let itemBytes = IndexShardCodec.encode(items: items)
    #expect(
      String(decoding: itemBytes, as: UTF8.self)
        == String(decoding: Self.reference(items: items), as: UTF8.self))
    #expect(IndexShardCodec.items(in: itemBytes) == items)

    let links = Self.linkRows(count, seed: UInt64(count) + 7)
    let linkBytes = IndexShardCodec.encode(links: links)
    #expect(
      String(decoding: linkBytes, as: UTF8.self)
        == String(decoding: Self.reference(links: links), as: UTF8.self))
    #expect(IndexShardCodec.links(in: linkBytes) == links)
  }

  @Test(arguments: [
    "", "[]", #"{"Entry:a": []}"#, #"{"Thing:a": {"linksTo": []}}"#,
    #"{"Entry:a": {"linksTo": ["nokind"]}}"#, #"{"Entry:a": {"revision": "1"}}"#,
    #"{"Entry:a": {"contentType": 5}}"#, #"{"Entry:a": {"linksTo": []}"#,
    #"{"Entry:../a": {"linksTo": []}}"#, #"{"Entry:a": {"linksTo": ["Asset:a/b"]}}"#,
    #"{"Entry:": {"linksTo": []}}"#, #"{"Entry": {"linksTo": []}}"#,
    #"{"Entryx:a": {"linksTo": []}}"#, #"{"entry:a": {"linksTo": []}}"#,
    #"{"Entry:a": {"linksTo": ["Asset;a"]}}"#,
    // The index writes keys unescaped; an escaped one is not from a shard.
    #"{"Entry\u003aa": {"linksTo": []}}"#,
  ])
  func bytesThatAreNotAnItemShardAreRejected(_ text: String) {
    #expect(IndexShardCodec.items(in: Array(text.utf8)) == nil)
  }

  @Test func aLinkShardWithAKeyThatIsNotAnItemIsRejected() {
    #expect(IndexShardCodec.links(in: Array(#"{"Entry:a": {"linkedFrom": [1]}}"#.utf8)) == nil)
    #expect(IndexShardCodec.links(in: Array(#"{"a": {"linkedFrom": []}}"#.utf8)) == nil)
  }
}
