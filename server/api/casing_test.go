package api

import "testing"

func TestRespellJSONKeepsValuesAndOrder(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"robotDataList":[{"basicData":{"id":"r1","name":"one"},"isOnline":true}]}`,
			`{"RobotDataList":[{"BasicData":{"Id":"r1","Name":"one"},"IsOnline":true}]}`},
		{`{"zeta":1,"alpha":2.50,"$type":3}`, `{"Zeta":1,"Alpha":2.50,"$type":3}`},
		{`{"robotStream":"{\"linear\":{\"x\":0.1}}"}`, `{"RobotStream":"{\"linear\":{\"x\":0.1}}"}`},
		{`[{"a":[],"b":{}},{"c":null,"d":[1,[2,{"e":false}]]}]`, `[{"A":[],"B":{}},{"C":null,"D":[1,[2,{"E":false}]]}]`},
		{`{"lastTimeSeen":"0001-01-01T00:00:00Z","n":12345678901234567890}`, `{"LastTimeSeen":"0001-01-01T00:00:00Z","N":12345678901234567890}`},
		{`"just a string"`, `"just a string"`},
		{`{"émoji":"é"}`, `{"Émoji":"é"}`},
	}
	for _, tc := range cases {
		got, err := pascalCase.respellJSON([]byte(tc.in))
		if err != nil || string(got) != tc.want+"\n" {
			t.Errorf("respell %s = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := pascalCase.respellJSON([]byte(`{"a":`)); err == nil {
		t.Error("a cut document respelled without an error")
	}
}
