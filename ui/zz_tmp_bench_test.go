package ui
import ("testing";"aipwatch/internal/benchgen";"aipwatch/model")
func BenchmarkZZHostileOnly(b *testing.B) {
	raws := benchgen.ResponsesItems(testAction, 20000)
	for i := 0; i < b.N; i++ { feedTUI(b, raws, model.OpResponses) }
}
