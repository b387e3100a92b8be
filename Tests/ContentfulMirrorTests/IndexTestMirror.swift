import MirrorTestSupport

@testable import ContentfulMirror

/// A new mirror root with the directories the index writes to, for tests of the index alone
/// (a ``MirrorStore`` would also take the lock and create the document trees).
struct IndexTestMirror {
  let directory: TemporaryDirectory
  let layout: MirrorLayout
  var fileSystem = FileSystem()

  init(_ label: String) throws {
    directory = try TemporaryDirectory(label)
    layout = MirrorLayout(root: directory.path)
    try fileSystem.makeRoot(layout.root)
    for path in [
      layout.privateDirectory, layout.indexDirectory + "/items", layout.indexDirectory + "/links",
    ] {
      try fileSystem.makeDirectory(path)
    }
  }
}
