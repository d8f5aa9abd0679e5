import { useState } from 'react';
import 'attnscope/widget'; // registers <attn-scope>

export function App() {
  const [sentence, setSentence] = useState('i can eat apple');
  const [shown, setShown] = useState(true);
  return (
    <>
      <h1>attnscope in React</h1>
      <button type="button" onClick={() => setSentence('i want to drink water')}>Another sentence</button>
      <button type="button" onClick={() => setShown(!shown)}>{shown ? 'Hide' : 'Show'} the widget</button>
      {shown && <attn-scope model="toy-en-de" src={sentence} view="cross" layer="0" head="0" />}
    </>
  );
}
