import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

@Suite struct IndexRedoLogTests {
  @Test func aLogRollsEveryShardForwardAndIsThenRemoved() throws {
    let mirror = try IndexTestMirror("redo")
    let layout = mirror.layout
    var fileSystem = mirror.fileSystem
    try fileSystem.writeAtomically(Array("old".utf8), to: layout.linkShardPath(7))
    let log = IndexRedoLog(layout: layout)
    let changes: [IndexRedoLog.Change] = [
      .init(relativePath: MirrorLayout.itemShard(1), bytes: Array("{\"a\": 1}\n".utf8)),
      .init(relativePath: MirrorLayout.itemShard(2), bytes: []),
      .init(relativePath: MirrorLayout.linkShard(7), bytes: nil),
    ]
    let writer = try IndexRedoLog.Writer(log)
    for change in changes { try writer.append(change) }
    try writer.commit(fileSystem: fileSystem)
    #expect(IndexRedoLog.parse(try #require(try fileSystem.readFileIfPresent(log.path))) == changes)
    // As if killed before applying: opening the store again rolls it forward.
    #expect(try log.recover(fileSystem: &fileSystem))
    #expect(try fileSystem.readFileIfPresent(layout.itemShardPath(1)) == Array("{\"a\": 1}\n".utf8))
    #expect(try fileSystem.readFileIfPresent(layout.itemShardPath(2)) == [])
    #expect(try fileSystem.readFileIfPresent(layout.linkShardPath(7)) == nil)
    #expect(try fileSystem.readFileIfPresent(log.path) == nil)
    #expect(try !log.recover(fileSystem: &fileSystem))
  }

  @Test(arguments: [
    "W ../../etc/passwd 1\nx", "W index/items/../../x.json 1\nx", "W manifest.json 2\n{}",
    "D index/items/zz1.json\n", "W index/items/001.json 5\nab", "X index/items/001.json\n",
    "W index/items/001.json\n",
  ])
  func aLogNamingAnythingButShardsOrCutShortIsRefused(_ body: String) {
    #expect(IndexRedoLog.parse(IndexRedoLog.header + Array(body.utf8)) == nil)
  }

  @Test func aLogWithoutItsHeaderIsRefused() {
    #expect(IndexRedoLog.parse(Array("D index/items/001.json\n".utf8)) == nil)
  }
}
