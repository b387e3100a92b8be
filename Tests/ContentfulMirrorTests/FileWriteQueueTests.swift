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
    try queue.drain()  // the next batch writes a file of this one
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

  @Test func aWriterStalledOnOneFileLeavesTheRestAndTheNextBatchToTheOthers() throws {
    let work = try TemporaryDirectory("write-queue")
    // Opening a FIFO for writing blocks until a reader opens it: a stand-in for a slow disk.
    let stall = work.appending("stalled.json")
    #expect(mkfifo(stall, 0o644) == 0)
    let queue = FileWriteQueue(root: work.path, writers: 2, batches: 2)
    let file = { (name: String) in FileWriteQueue.File(path: work.appending(name), bytes: [0x31]) }
    queue.submit([[.init(path: stall, bytes: Array("{}".utf8), inPlace: true)], [file("a")]])
    queue.submit([[file("b")], [file("c")]])  // returns at once: two batches may be in flight
    let deadline = Date().addingTimeInterval(10)
    let written = {
      ["a", "b", "c"].allSatisfy { FileManager.default.fileExists(atPath: work.appending($0)) }
    }
    while !written() && Date() < deadline { usleep(1000) }
    #expect(written(), "the free writer took the stalled one's share and the next batch")
    let reader = open(stall, O_RDONLY)
    #expect(reader >= 0)
    var buffer = [UInt8](repeating: 0, count: 16)
    while read(reader, &buffer, buffer.count) > 0 {}
    close(reader)
    try queue.drain()
  }
}
