import Testing
@testable import Trove
