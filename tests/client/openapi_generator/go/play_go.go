// Plays one game of Avalanche Chess and one of Avalanche (cards) to their end against a
// running server with the client openapi-generator's `go` generator writes from
// openapi/openapi.json (options `enumClassPrefix=true,useOneOfDiscriminatorLookup=true`; what
// CI does: see .ci/run). Nothing of the generated code is edited: every answer is read
// through its models and every command posted through them.
//
// Usage: play_go BASE_URL
package main

import (
	"avalanche"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"
)

// The table's commands, posted like the game's own: the game is played with the game's own.
var table = map[string]bool{
	"join": true, "cancel": true, "resign": true, "offer_draw": true, "accept_draw": true,
	"decline_draw": true, "request_takeback": true, "accept_takeback": true,
	"decline_takeback": true, "claim_timeout": true,
}

// polite sends a request again while the server answers 429 (its limits on each player's
// commands), after the `Retry-After` it gives: nothing was played.
type polite struct{ waited int }

func (p *polite) RoundTrip(request *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		if attempt > 1 && request.GetBody != nil {
			body, err := request.GetBody()
			if err != nil {
				return nil, err
			}
			request.Body = body
		}
		response, err := http.DefaultTransport.RoundTrip(request)
		if err != nil || response.StatusCode != http.StatusTooManyRequests || attempt == 30 {
			return response, err
		}
		seconds, err := strconv.Atoi(response.Header.Get("Retry-After"))
		if err != nil || seconds < 1 {
			return nil, fmt.Errorf("a 429 without a Retry-After in seconds")
		}
		response.Body.Close()
		p.waited++
		time.Sleep(time.Duration(seconds) * time.Second)
	}
}

// A game as every kind's summary reads it.
type game interface {
	GetId() string
	GetKind() string
	GetStatus() avalanche.Status
	GetToAct() []int64
	GetVersion() int64
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "failed: "+format+"\n", args...)
	os.Exit(1)
}

func must(err error, what string) {
	if err != nil {
		if open, ok := err.(*avalanche.GenericOpenAPIError); ok {
			fail("%s: %v %s", what, err, open.Body())
		}
		fail("%s: %v", what, err)
	}
}

func summary(s *avalanche.GameSummary) game {
	g, ok := s.GetActualInstance().(game)
	if !ok {
		fail("a game summary of no kind: %+v", s)
	}
	return g
}

func playOne(base string, transport *polite, kind string, seats int, seed uint64) string {
	configuration := avalanche.NewConfiguration()
	configuration.Servers = avalanche.ServerConfigurations{{URL: base}}
	configuration.HTTPClient = &http.Client{Transport: transport}
	client := avalanche.NewAPIClient(configuration)
	anonymous := context.Background()
	var players []context.Context
	for n := 0; n < seats; n++ {
		created, _, err := client.PlayersAPI.CreatePlayer(anonymous).
			SignUp(*avalanche.NewSignUp(fmt.Sprintf("%s go %d", kind, n))).Execute()
		must(err, "sign up")
		players = append(players, context.WithValue(anonymous, avalanche.ContextAccessToken, created.GetToken()))
	}
	var newGame avalanche.NewGame
	must(json.Unmarshal([]byte(fmt.Sprintf(`{"kind": %q, "seats": %d, "options": {}}`, kind, seats)), &newGame), "a new game")
	created, _, err := client.GamesAPI.CreateGame(players[0]).NewGame(newGame).Execute()
	must(err, "create a game")
	id := summary(created).GetId()
	if summary(created).GetKind() != kind {
		fail("the game is of %s", kind)
	}
	for _, seat := range players[1:] {
		answer, _, err := client.GamesAPI.JoinGame(seat, id).JoinRequest(*avalanche.NewJoinRequest()).Execute()
		must(err, "join")
		if len(answer.GetEvents()) == 0 {
			fail("a join is recorded")
		}
	}
	state := seed
	below := func(n int) int {
		state = (state*1103515245 + 12345) % 2147483648
		return int(state % uint64(n))
	}
	commands := 0
	for {
		read, _, err := client.GamesAPI.GetGame(anonymous, id).Execute()
		must(err, "read the game")
		now := summary(read)
		if now.GetStatus() == avalanche.STATUS_FINISHED {
			break
		}
		toAct := now.GetToAct()
		if len(toAct) == 0 {
			fail("someone is to act in a running game")
		}
		seat := toAct[below(len(toAct))]
		legal, _, err := client.PlayAPI.ListLegalCommands(players[seat], id).Execute()
		must(err, "the legal commands")
		// The list as its kind's model writes it, each command then read as the request's union.
		written, err := json.Marshal(legal)
		must(err, "write the legal list")
		var wire struct {
			Version  int64
			Commands []struct {
				Command  json.RawMessage
				Notation string
			}
		}
		must(json.Unmarshal(written, &wire), "read the legal list")
		var own []int
		for i, c := range wire.Commands {
			var tag struct{ Type string }
			must(json.Unmarshal(c.Command, &tag), "a command's type")
			if (commands >= 1500 && tag.Type == "resign") || (commands < 1500 && !table[tag.Type]) {
				own = append(own, i)
			}
		}
		if len(own) == 0 {
			fail("seat %d has a command: %s", seat, written)
		}
		chosen := wire.Commands[own[below(len(own))]]
		var command avalanche.GameCommand
		must(json.Unmarshal(chosen.Command, &command), "read "+chosen.Notation)
		answer, _, err := client.PlayAPI.PlayCommand(players[seat], id).GameCommand(command).
			IfMatch(fmt.Sprintf("%q", strconv.FormatInt(wire.Version, 10))).Execute()
		must(err, chosen.Notation)
		if summary(&answer.Game).GetVersion() <= wire.Version {
			fail("the command moved the game on")
		}
		commands++
	}
	audit, _, err := client.ReplayAPI.AuditGame(anonymous, id).Execute()
	must(err, "audit")
	written, err := json.Marshal(audit)
	must(err, "write the audit")
	var report struct{ Valid bool }
	must(json.Unmarshal(written, &report), "read the audit")
	if !report.Valid {
		fail("the game of %s audits valid", kind)
	}
	read, _, err := client.GamesAPI.GetGame(anonymous, id).Execute()
	must(err, "read the game")
	finished := summary(read)
	return fmt.Sprintf("%s: %d commands, %d events", kind, commands, finished.GetVersion())
}

func main() {
	base := "http://127.0.0.1:8080"
	if len(os.Args) > 1 {
		base = os.Args[1]
	}
	transport := &polite{}
	fmt.Println(playOne(base, transport, "avalanche-chess", 2, 41))
	fmt.Println(playOne(base, transport, "avalanche", 3, 42))
	fmt.Printf("go (openapi-generator): a chess game and a card game played to their end (%d answers of 429 waited out)\n", transport.waited)
}
