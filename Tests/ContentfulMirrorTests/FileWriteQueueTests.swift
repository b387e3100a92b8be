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
    queue.submit([[(work.appending("blocker/x.json"), Array("{}".utf8))]])
    #expect(throws: MirrorError.self) { try queue.drain() }
  }
}
