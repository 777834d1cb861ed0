import Testing
@testable import TroveStorage
