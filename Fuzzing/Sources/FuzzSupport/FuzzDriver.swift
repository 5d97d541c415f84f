import CFuzzerDriver
#if canImport(Glibc)
import Glibc
#endif

/// The glue every fuzz target shares: its `main` hands libFuzzer the target's one-input function.
///
/// SwiftPM links an executable with `main` pointing at the module's own entry point, so libFuzzer's
/// `main` never runs; each target therefore has an `@main` that calls ``run(_:)``, which passes the
/// command line to `LLVMFuzzerRunDriver` (all of libFuzzer's flags work as usual).
public enum FuzzDriver {
    /// The signature of `LLVMFuzzerTestOneInput`.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer with this process's arguments and exits with its status.
    public static func run(_ testOneInput: TestOneInput) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
    }

    /// The input as a byte array (empty for a null pointer).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

/// Fails the run (libFuzzer keeps the input as a crash file) when a property does not hold.
/// Unlike `assert`, it is checked in release builds too.
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() {
        fatalError("property failed: \(message())", file: file, line: line)
    }
}
