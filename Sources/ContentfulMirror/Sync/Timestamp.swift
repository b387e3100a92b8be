#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// ISO 8601 UTC timestamps for reports (never for documents: those carry only the API's data).
enum Timestamp {
  static func now() -> String {
    var seconds = time(nil)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func pad(_ value: Int32, _ width: Int = 2) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
      + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))Z"
  }
}
