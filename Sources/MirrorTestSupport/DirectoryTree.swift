import Foundation

/// A directory tree read into memory: relative path → file bytes, for comparisons and greps.
public struct DirectoryTree: Equatable, Sendable {
  public var files: [String: [UInt8]]

  /// Reads every regular file under `root`, skipping relative paths for which `excluding` is true.
  public init(root: String, excluding: (String) -> Bool = { _ in false }) {
    var files: [String: [UInt8]] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let relative = enumerator?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      let full = root + "/" + relative
      guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory),
        !isDirectory.boolValue,
        !excluding(relative), let data = FileManager.default.contents(atPath: full)
      else { continue }
      files[relative] = [UInt8](data)
    }
    self.files = files
  }

  /// The mirror's content without per-run files (lock, last-sync report).
  public static func mirror(at root: String) -> DirectoryTree {
    DirectoryTree(root: root) { $0 == ".mirror/lock" || $0 == ".mirror/last-sync.json" }
  }

  /// The mirror's state without its history (the sync journal), for comparing mirrors that
  /// reached the same state by different routes.
  public static func content(at root: String) -> DirectoryTree {
    DirectoryTree(root: root) {
      $0 == ".mirror/lock" || $0 == ".mirror/last-sync.json" || $0.hasPrefix(".mirror/journal/")
    }
  }

  /// Writes the tree under `root` (replacing what is there), for re-recording golden trees.
  public func write(to root: String) throws {
    try? FileManager.default.removeItem(atPath: root)
    for (relative, bytes) in files {
      let path = root + "/" + relative
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
  }

  /// Relative paths whose presence or bytes differ between two trees.
  public func differences(from other: DirectoryTree) -> [String] {
    Set(files.keys).union(other.files.keys).filter { files[$0] != other.files[$0] }.sorted()
  }
}
