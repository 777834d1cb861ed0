import Testing
@testable import Trove

/// The one rule behind every "did you mean": models, properties, types and schema keys.
@Suite struct NameSuggestionTests {
    @Test func aSwapOfTwoAdjacentLettersIsOneEdit() {
        #expect(NameSuggestion.distance(Array("dgo"), Array("dog")) == 1)
        #expect(NameSuggestion.distance(Array("ca"), Array("abc")) == 3)
        #expect(NameSuggestion.closest(to: "Dgo", among: ["Cat", "Dog"]) == "Dog")
        #expect(NameSuggestion.closest(to: "Cra", among: ["Car", "Maker"]) == "Car")
        #expect(NameSuggestion.closest(to: "nmae", among: ["id", "name"]) == "name")
    }

    @Test func equallyCloseCandidatesAreToldApartByTheirTrueDistance() {
        for typo in ["PersonAdress", "PersonAddres"] {
            #expect(NameSuggestion.closest(to: typo, among: ["Person", "PersonAddress"]) == "PersonAddress", "\(typo)")
            #expect(NameSuggestion.closest(to: typo, among: ["PersonAddress", "Person"]) == "PersonAddress", "\(typo)")
        }
    }

    @Test func aPrefixIsAGuessOnlyWithinAFewLetters() {
        #expect(NameSuggestion.closest(to: "integer", among: ["int", "string"]) == "int")
        #expect(NameSuggestion.closest(to: "boolean", among: ["bool", "string"]) == "bool")
        #expect(NameSuggestion.closest(to: "index", among: ["type", "indexed"]) == "indexed")
        #expect(NameSuggestion.closest(to: "Carburetor", among: ["Car", "Maker"]) == nil)
        #expect(NameSuggestion.closest(to: "Persons", among: ["Person", "Dog"]) == "Person")
    }

    @Test func aNameFarFromEveryCandidateGetsNone() {
        #expect(NameSuggestion.closest(to: "Cat", among: ["Person", "Dog"]) == nil)
        #expect(NameSuggestion.closest(to: "Dog", among: ["Dog"]) == nil)
        #expect(NameSuggestion.closest(to: "x", among: []) == nil)
    }
}
