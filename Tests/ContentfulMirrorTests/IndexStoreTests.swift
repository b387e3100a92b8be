import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

@Suite struct IndexStoreTests {
  /// Hundreds of shards change at once, as at the end of a first sync: each lands in its own
  /// file with exactly its rows, whether written through the redo log or by the write queue.
  @Test(arguments: [false, true])
  func aFlushOfManyShardsWritesEachShardWithItsOwnRows(logged: Bool) throws {
    let mirror = try IndexTestMirror("index")
    let layout = mirror.layout
    var fileSystem = mirror.fileSystem
    let index = IndexStore(layout: layout)
    index.isEmptyOnDisk = true
    // Each entry links to the next one and to one of five assets the mirror does not have.
    var expected: [ItemKey: IndexStore.ItemRow] = [:]
    for number in 0..<600 {
      let key = ItemKey(.entry, "e\(number)")
      let row = IndexStore.ItemRow(
        contentType: "post", revision: number,
        linksTo: [ItemKey(.entry, "e\((number + 1) % 600)"), ItemKey(.asset, "a\(number % 5)")])
      try index.upsert(key, row: row, fileSystem: fileSystem)
      expected[key] = row
    }
    let queue = logged ? nil : FileWriteQueue(root: layout.root, writers: 2)
    try index.flush(using: &fileSystem, logged: logged, queue: queue)
    try queue?.drain()

    var items: [ItemKey: IndexStore.ItemRow] = [:]
    var links: [ItemKey: IndexStore.LinkRow] = [:]
    for shard in 0..<IndexStore.shardCount {
      if let bytes = try fileSystem.readFileIfPresent(layout.itemShardPath(shard)) {
        for (key, row) in try #require(IndexShardCodec.items(in: bytes)) {
          #expect(IndexStore.shard(of: key) == shard)
          items[key] = row
        }
      }
      if let bytes = try fileSystem.readFileIfPresent(layout.linkShardPath(shard)) {
        for (key, row) in try #require(IndexShardCodec.links(in: bytes)) {
          #expect(IndexStore.shard(of: key) == shard)
          links[key] = row
        }
      }
    }
    #expect(items == expected)
    #expect(links.count == 605)
    #expect(
      links[ItemKey(.entry, "e0")] == .init(linkedFrom: [ItemKey(.entry, "e599")], dangling: false))
    #expect(links[ItemKey(.asset, "a3")]?.linkedFrom.count == 120)
    #expect(links[ItemKey(.asset, "a3")]?.dangling == true)
  }
}
