package ops

// RulesGrant is rulesGrant, for TestRulesGrant.
var RulesGrant = rulesGrant
