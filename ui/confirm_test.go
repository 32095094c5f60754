package ui

import "testing"

// The cancel's confirmation asks for as many of the ID's last characters
// as tell it from its neighbours (the console's test presses it).
func TestConfirmSuffix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		id     string
		others []string
		want   string
	}{
		{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70", nil, "6f70"},
		{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70", []string{"act_0193b8e2c1a07d3e9f1a2b3c4d5e6f70", "act_x_6f71"}, "6f70"},
		{"act_a_sync_long", []string{"act_b_async_long"}, "_sync_long"},
		{"act_b_async_long", []string{"act_a_sync_long"}, "async_long"},
		{"abc", []string{"xabc"}, "abc"},
	}
	for _, tc := range cases {
		if got := DistinctSuffix(tc.id, tc.others); got != tc.want {
			t.Errorf("DistinctSuffix(%q, %q) = %q, want %q", tc.id, tc.others, got, tc.want)
		}
	}
}
