import Foundation
import MirrorTestSupport
import Testing

@testable import ContentfulMirror

@Suite struct FileWriteQueueTests {
  @Test func aFailedWriteIsReportedByTheNextDrain() throws {
    let work = try TemporaryDirectory("write-queue")
    try Data().write(to: URL(fileURLWithPath: work.appending("blocker")))
    let queue = FileWriteQueue(root: work.path, writers: 2)
    // A regular file stands where a directory is needed.
    queue.submit([[.init(path: work.appending("blocker/x.json"), bytes: Array("{}".utf8))]])
    #expect(throws: MirrorError.self) { try queue.drain() }
  }

  @Test func filesWrittenInPlaceAndAtomicallyHoldTheirBytesAndLeaveNoTemporaryFile() throws {
    let work = try TemporaryDirectory("write-queue")
    let queue = FileWriteQueue(root: work.path, writers: 2)
    let items: [[FileWriteQueue.File]] = (0..<6).map { item in
      [
        .init(path: work.appending("d\(item)/a.json"), bytes: Array("{\"a\":\(item)}".utf8)),
        .init(
          path: work.appending("d\(item)/b.json"), bytes: Array("[\(item)]".utf8), inPlace: true),
      ]
    }
    queue.submit(items)
    queue.submit([
      [.init(path: work.appending("d0/b.json"), bytes: Array("[]".utf8), inPlace: true)]
    ])
    try queue.drain()
    for item in 0..<6 {
      let directory = work.appending("d\(item)")
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
          "a.json", "b.json",
        ])
      #expect(
        try String(contentsOfFile: directory + "/a.json", encoding: .utf8) == "{\"a\":\(item)}")
      let expected = item == 0 ? "[]" : "[\(item)]"  // written in place over a longer file
      #expect(try String(contentsOfFile: directory + "/b.json", encoding: .utf8) == expected)
    }
  }
}
