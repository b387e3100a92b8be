/// Command-line arguments split into flags, valued options (repeatable) and positionals.
///
/// Accepts `--name value`, `--name=value` and `--` (everything after it is positional).
struct ParsedArguments {
  var positionals: [String] = []
  var options: [String: [String]] = [:]
  var flags: Set<String> = []

  /// Parses `arguments` against the options a command knows.
  ///
  /// - Throws: ``UsageError`` for an unknown option or a missing value.
  init(_ arguments: [String], valued: Set<String>, flags knownFlags: Set<String>) throws(UsageError)
  {
    var index = 0
    var onlyPositionals = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
        positionals.append(argument)
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      var name = argument
      var inlineValue: String?
      if let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      if knownFlags.contains(name), inlineValue == nil {
        flags.insert(name)
      } else if valued.contains(name) {
        if let inlineValue {
          options[name, default: []].append(inlineValue)
        } else {
          guard index < arguments.count else { throw UsageError("\(name) needs a value") }
          options[name, default: []].append(arguments[index])
          index += 1
        }
      } else {
        throw UsageError("unknown option \(name)")
      }
    }
  }

  /// The last value of a valued option.
  func value(_ name: String) -> String? { options[name]?.last }

  /// Every value of a repeatable option, or `nil` when it was not given.
  func values(_ name: String) -> [String]? { options[name] }

  /// The whole-number value of option `name`, or `nil` when it was not given.
  ///
  /// - Parameter unit: What the number counts, for the message (`pages`).
  /// - Throws: ``UsageError`` when the value is not a number in `range`.
  func integer(_ name: String, in range: ClosedRange<Int>, of unit: String? = nil) throws -> Int? {
    guard let text = value(name) else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw UsageError(
        "\(name) needs a number\(unit.map { " of \($0)" } ?? "") from \(range.lowerBound) to \(range.upperBound)"
      )
    }
    return number
  }
}

/// A mistake in how the command was called: exit code 64, with the usage hint.
struct UsageError: Error, CustomStringConvertible {
  var message: String
  init(_ message: String) { self.message = message }
  var description: String { message }
}
