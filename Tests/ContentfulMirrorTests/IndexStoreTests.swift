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

  /// A first sync collects its rows and derives the link index once, at the flush. Whatever the
  /// rows do (an item upserted twice with other links, links to itself and to items that never
  /// come, a removal or a query of referrers in between), the shards it writes are byte for byte
  /// those of the same upserts applied one by one.
  @Test(arguments: [nil, "remove", "referrers"])
  func collectedRowsGiveTheShardsOfRowByRowUpserts(interruptedBy operation: String?) throws {
    var generator = SplitMix64(seed: 7)
    var operations: [(ItemKey, IndexStore.ItemRow)] = []
    for step in 0..<1500 {
      let key = ItemKey(
        step % 3 == 0 ? .asset : .entry, "i\(Int.random(in: 0..<900, using: &generator))")
      let links = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
        ItemKey(
          Bool.random(using: &generator) ? .entry : .asset,
          "i\(Int.random(in: 0..<1000, using: &generator))")
      }
      operations.append(
        (
          key,
          .init(
            contentType: key.kind == .entry ? "post" : nil, revision: step,
            linksTo: Array(Set(links + (step % 50 == 0 ? [key] : []))).sorted())
        ))
    }

    func shards(collecting: Bool) throws -> [String: [UInt8]] {
      let mirror = try IndexTestMirror(collecting ? "collected" : "row-by-row")
      var fileSystem = mirror.fileSystem
      let index = IndexStore(layout: mirror.layout)
      index.isEmptyOnDisk = collecting  // otherwise the (absent) shards are read from disk
      for (number, (key, row)) in operations.enumerated() {
        try index.upsert(key, row: row, fileSystem: fileSystem)
        #expect(try index.row(for: key, fileSystem: fileSystem) == row)
        if number == 1000, operation == "remove" {
          try index.remove(operations[10].0, fileSystem: fileSystem)
        } else if number == 1000, operation == "referrers" {
          _ = try index.referrers(of: operations[10].0, fileSystem: fileSystem)
        }
      }
      try index.flush(using: &fileSystem, logged: false)
      var files: [String: [UInt8]] = [:]
      for shard in 0..<IndexStore.shardCount {
        for path in [mirror.layout.itemShardPath(shard), mirror.layout.linkShardPath(shard)] {
          if let bytes = try fileSystem.readFileIfPresent(path) {
            files[String(path.dropFirst(mirror.layout.root.count))] = bytes
          }
        }
      }
      return files
    }
    let collected = try shards(collecting: true)
    let rowByRow = try shards(collecting: false)
    #expect(collected.count > 1000)
    #expect(collected.keys.sorted() == rowByRow.keys.sorted())
    let differing = collected.keys.sorted().first { collected[$0] != rowByRow[$0] }
    #expect(differing == nil, "first differing shard: \(differing ?? "")")
  }
}
