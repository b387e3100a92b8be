import Foundation

/// A fresh directory under the system's temporary directory, removed on `deinit`.
public final class TemporaryDirectory: @unchecked Sendable {
  public let path: String

  public init(_ label: String = "test") throws {
    let base = NSTemporaryDirectory() + "contentful-mirror-\(label)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    path = base
  }

  /// A path inside the directory.
  public func appending(_ component: String) -> String { path + "/" + component }

  deinit { try? FileManager.default.removeItem(atPath: path) }
}
