import Foundation
import MirrorCLI

let code = await MirrorCommandLine(environment: ProcessInfo.processInfo.environment)
  .run(Array(CommandLine.arguments.dropFirst()))
exit(code)
