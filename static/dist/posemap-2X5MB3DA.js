import{e as a,f as b,g as c}from"./chunk-NPRD3X4U.js";import"./chunk-XOJ3ISBQ.js";export{a as loadFleetMap,c as mountPoseMap,b as poseOfPayload};
