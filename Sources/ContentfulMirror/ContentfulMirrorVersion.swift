/// The version of this package.
public enum ContentfulMirrorVersion {
  /// The semantic version printed by `contentful-mirror --version`.
  public static let current = "0.1.0"
}
