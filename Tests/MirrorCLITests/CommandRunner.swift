import Foundation
import MirrorTestSupport

/// Runs the built `contentful-mirror` executable as a child process.
struct CommandRunner {
  struct Result {
    var status: Int32
    var output: String
    var error: String
  }

  /// The executable in the products directory this test bundle was built into.
  static var executable: URL {
    let candidates = [
      Bundle.main.bundleURL.appendingPathComponent("contentful-mirror"),
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("contentful-mirror"),
      URL(fileURLWithPath: RepositoryPaths.root + "/.build/debug/contentful-mirror"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
      ?? candidates[2]
  }

  var environment: [String: String] = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
  var directory = RepositoryPaths.root

  func run(_ arguments: [String]) throws -> Result {
    try launch(Self.executable, arguments)
  }

  /// Runs `script` with `/bin/sh -c`, `$0` being the executable and `$1`… the arguments.
  func runShell(_ script: String, _ arguments: [String]) throws -> Result {
    try launch(URL(fileURLWithPath: "/bin/sh"), ["-c", script, Self.executable.path] + arguments)
  }

  /// Starts the executable without waiting, its output discarded (for tests that kill it).
  func start(_ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = Self.executable
    process.arguments = arguments
    process.environment = environment
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
  }

  private func launch(_ executable: URL, _ arguments: [String]) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
      error: String(decoding: errData, as: UTF8.self))
  }
}
