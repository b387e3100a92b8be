import MirrorTestSupport
import Testing

@testable import ContentfulMirror

@Suite struct FileSystemTests {
  @Test func aCursorWithFlushesOffDoesNotFlush() throws {
    // Flushing opens the path first: a path that does not exist shows whether it was tried.
    let work = try TemporaryDirectory("file-system")
    var fileSystem = FileSystem()
    #expect(throws: MirrorError.self) { try fileSystem.syncFileSystem(of: work.appending("none")) }
    fileSystem.flushes = false
    try fileSystem.syncFileSystem(of: work.appending("none"))
  }
}
