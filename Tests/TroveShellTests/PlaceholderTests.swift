import Testing
@testable import TroveShell
