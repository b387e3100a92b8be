/// Contentful's rules for ids, content type ids and locale codes that become path components.
///
/// Everything that names a file or directory in the mirror passes through here first, so hostile
/// data (`../x`, `/etc`, NUL, very long names) can never leave the mirror directory.
public enum Identifier {
  /// What is being checked, for the error message.
  public enum Role: String, Sendable {
    case entryID = "entry id"
    case assetID = "asset id"
    case contentTypeID = "content type id"
    case localeCode = "locale code"
    case syncToken = "sync token"
  }

  /// Whether `text` is a valid id: 1–64 characters of `[A-Za-z0-9._-]`, not `.` or `..`.
  public static func isValid(_ text: String) -> Bool {
    isValid(utf8: text.utf8)
  }

  /// Whether the UTF-8 text `bytes` is a valid id (see ``isValid(_:)``).
  static func isValid(utf8 bytes: some Collection<UInt8>) -> Bool {
    guard (1...64).contains(bytes.count), bytes.allSatisfy(isAllowed) else { return false }
    return !bytes.allSatisfy { $0 == UInt8(ascii: ".") } || bytes.count > 2
  }

  /// Whether `text` is a valid locale code (e.g. `en-US`, `de`, `zh-Hant-TW`): the id alphabet,
  /// 1–64 characters, and not starting with `.` or `-`.
  public static func isValidLocaleCode(_ text: String) -> Bool {
    isValidLocaleCode(utf8: text.utf8)
  }

  /// Whether the UTF-8 text `bytes` is a valid locale code (see ``isValidLocaleCode(_:)``).
  static func isValidLocaleCode(utf8 bytes: some Collection<UInt8>) -> Bool {
    guard isValid(utf8: bytes), let first = bytes.first else { return false }
    return first != UInt8(ascii: ".") && first != UInt8(ascii: "-")
  }

  /// Checks `text` for `role`.
  ///
  /// - Throws: ``SyncError`` with code `.invalidIdentifier`, naming the value and its owner.
  public static func validate(_ text: String, as role: Role, in context: String) throws(SyncError) {
    let valid = role == .localeCode ? isValidLocaleCode(text) : isValid(text)
    guard valid else {
      throw SyncError(
        .invalidIdentifier,
        "\(context) has an invalid \(role.rawValue) \(quoted(text)) (allowed: 1-64 characters of "
          + "A-Z a-z 0-9 . _ -, not \".\" or \"..\"); nothing of this sync was committed")
    }
  }

  private static func isAllowed(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "-"):
      return true
    default:
      return false
    }
  }

  /// A printable, bounded rendering of untrusted text for messages.
  static func quoted(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars.prefix(80) {
      result +=
        scalar.isASCII && scalar.value >= 0x20 ? String(scalar) : scalar.escaped(asASCII: true)
    }
    if text.unicodeScalars.count > 80 { result += "…" }
    return "\"\(result)\""
  }
}
