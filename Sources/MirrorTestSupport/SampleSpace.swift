import Foundation

/// Paths of the repository's own fixtures, found from this source file's location.
public enum RepositoryPaths {
  /// The repository root.
  public static var root: String {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }

  /// `sample-space/`.
  public static var sampleSpace: String { root + "/sample-space" }

  /// `../shared` beside the repository, if this checkout has one.
  public static var shared: String? {
    let path = URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent(
      "shared"
    ).path
    return FileManager.default.fileExists(atPath: path) ? path : nil
  }

  /// Copies a recorded space into `destination` so a test can edit it.
  public static func copySampleSpace(to destination: String) throws {
    try FileManager.default.copyItem(atPath: sampleSpace, toPath: destination)
  }
}
